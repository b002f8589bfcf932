-- Version 7: ids given out in blocks, counted in the database (as PostgreSQL does for a
-- cluster's nodes); `last` is the last id of the newest block of each kind.
CREATE TABLE id_blocks (
    kind TEXT PRIMARY KEY,
    last INTEGER NOT NULL
);
