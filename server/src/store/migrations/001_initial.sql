-- Version 1: players, games and moves.

CREATE TABLE players (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    -- SHA-256 of the session token; the token itself is never stored.
    token_hash   BLOB    NOT NULL UNIQUE,
    created_ms   INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL
);

CREATE TABLE games (
    id                 INTEGER PRIMARY KEY,
    variant            TEXT    NOT NULL,
    kind               TEXT    NOT NULL,
    -- Each seat is a player or an AI level.
    x_player           INTEGER REFERENCES players (id),
    x_level            TEXT,
    o_player           INTEGER REFERENCES players (id),
    o_level            TEXT,
    clock_initial_ms   INTEGER,
    clock_increment_ms INTEGER,
    listed             INTEGER NOT NULL,
    rematch_of         INTEGER,
    -- The player whose play_ai or start_war started it.
    started_by         INTEGER REFERENCES players (id),
    started_ms         INTEGER NOT NULL,
    -- The seq of the latest update stored.
    seq                INTEGER NOT NULL DEFAULT 0,
    -- Set when the game ends.
    ended_ms           INTEGER,
    winner             TEXT,
    reason             TEXT,
    cells              TEXT
);

CREATE INDEX games_live ON games (id) WHERE ended_ms IS NULL;
CREATE INDEX games_by_x ON games (x_player, id);
CREATE INDEX games_by_o ON games (o_player, id);

CREATE TABLE moves (
    game     INTEGER NOT NULL REFERENCES games (id),
    ply      INTEGER NOT NULL,
    cell     INTEGER NOT NULL,
    -- Milliseconds since the game started.
    at_ms    INTEGER NOT NULL,
    -- In a timed game, the mover's time left after the move.
    clock_ms INTEGER,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
