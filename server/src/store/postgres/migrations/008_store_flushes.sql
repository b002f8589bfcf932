-- Version 8: one row per store connection that answers commits once written (`--durability interval`):
-- each flush rewrites its row in a transaction committed with synchronous_commit on, whose
-- commit waits until the write-ahead log is on disk up to it, and so every commit before it.
CREATE TABLE store_flushes (
    pid INTEGER PRIMARY KEY,
    flushed_at TIMESTAMPTZ NOT NULL
);
