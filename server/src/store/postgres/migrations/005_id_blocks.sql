-- Version 5: the ids a cluster's nodes give out, counted here rather than in Redis: a Redis that
-- restarts empty must never make a node give an id twice. A node takes a block of ids at a time;
-- `last` is the last id of the newest block of each kind (`player`, `game`, `seek`).
CREATE TABLE id_blocks (
    kind TEXT PRIMARY KEY,
    last BIGINT NOT NULL
);
