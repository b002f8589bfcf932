-- Version 3: a player may hold several tokens, each replaced when it is used, expiring when left
-- unused, and revoked by `logout`. Only their SHA-256 hashes are kept.

CREATE TABLE tokens (
    hash       BLOB    PRIMARY KEY,
    player     INTEGER NOT NULL REFERENCES players (id),
    -- When the token was issued or last presented.
    used_ms    INTEGER NOT NULL,
    -- Set when a newer token replaces it: it stops working then.
    expires_ms INTEGER
) WITHOUT ROWID;

CREATE INDEX tokens_by_player ON tokens (player);

INSERT INTO tokens (hash, player, used_ms)
    SELECT token_hash, id, last_seen_ms FROM players;

-- The players' table without its token column (rebuilt: a UNIQUE column cannot be dropped).
CREATE TABLE players_v3 (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    created_ms   INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL
);
INSERT INTO players_v3 (id, name, created_ms, last_seen_ms)
    SELECT id, name, created_ms, last_seen_ms FROM players;
DROP TABLE players;
ALTER TABLE players_v3 RENAME TO players;
