-- Version 4: accounts (a guest that claimed a username and a password) and their signed-in
-- devices. Only argon2id PHC strings are kept, never a password.

CREATE TABLE accounts (
    player     BIGINT PRIMARY KEY REFERENCES players (id),
    username   TEXT    NOT NULL,
    -- The username lower-cased: unique among accounts; set to NULL when a closed account's
    -- name is freed.
    username_key TEXT UNIQUE,
    phc        TEXT    NOT NULL,
    created_ms BIGINT NOT NULL,
    closed_ms  BIGINT
);

-- A device signed in to an account: the token it holds now, and the one before (which works
-- for a short overlap after each trade).
CREATE TABLE devices (
    id           BIGINT PRIMARY KEY,
    player       BIGINT NOT NULL REFERENCES players (id),
    label        TEXT,
    created_ms   BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    token        BYTEA    NOT NULL,
    previous     BYTEA
);

CREATE INDEX devices_by_player ON devices (player);
CREATE INDEX devices_by_token ON devices (token);
CREATE INDEX devices_by_previous ON devices (previous);
