-- Version 1: players and their tokens, games, moves and Glicko-2 ratings per variant; the same
-- tables as SQLite's version 3. Ids are given out by the server, not by sequences.

CREATE TABLE players (
    id           BIGINT PRIMARY KEY,
    name         TEXT   NOT NULL,
    created_ms   BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL
);

-- A player may hold several tokens, each replaced when it is used, expiring when left unused,
-- and revoked by `logout`. Only their SHA-256 hashes are kept.
CREATE TABLE tokens (
    hash       BYTEA  PRIMARY KEY,
    player     BIGINT NOT NULL REFERENCES players (id),
    -- When the token was issued or last presented.
    used_ms    BIGINT NOT NULL,
    -- Set when a newer token replaces it: it stops working then.
    expires_ms BIGINT
);

CREATE INDEX tokens_by_player ON tokens (player);

CREATE TABLE games (
    id                 BIGINT  PRIMARY KEY,
    variant            TEXT    NOT NULL,
    kind               TEXT    NOT NULL,
    -- Each seat is a player or an AI level.
    x_player           BIGINT  REFERENCES players (id),
    x_level            TEXT,
    o_player           BIGINT  REFERENCES players (id),
    o_level            TEXT,
    clock_initial_ms   BIGINT,
    clock_increment_ms BIGINT,
    rated              BOOLEAN NOT NULL DEFAULT FALSE,
    listed             BOOLEAN NOT NULL,
    rematch_of         BIGINT,
    -- The player whose play_ai or start_war started it.
    started_by         BIGINT  REFERENCES players (id),
    started_ms         BIGINT  NOT NULL,
    -- The seq a restored game continues from.
    seq                BIGINT  NOT NULL DEFAULT 0,
    -- Set when the game ends.
    ended_ms           BIGINT,
    winner             TEXT,
    reason             TEXT,
    cells              TEXT,
    -- In a finished rated game, each player's rating before it and the change it made.
    x_rating           DOUBLE PRECISION,
    x_rating_change    DOUBLE PRECISION,
    o_rating           DOUBLE PRECISION,
    o_rating_change    DOUBLE PRECISION
);

CREATE INDEX games_live ON games (id) WHERE ended_ms IS NULL;
CREATE INDEX games_by_x ON games (x_player, id);
CREATE INDEX games_by_o ON games (o_player, id);

CREATE TABLE moves (
    game     BIGINT NOT NULL REFERENCES games (id),
    ply      BIGINT NOT NULL,
    cell     BIGINT NOT NULL,
    -- Milliseconds since the game started.
    at_ms    BIGINT NOT NULL,
    -- In a timed game, the mover's time left after the move.
    clock_ms BIGINT,
    PRIMARY KEY (game, ply)
);

CREATE TABLE ratings (
    player     BIGINT           NOT NULL REFERENCES players (id),
    variant    TEXT             NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    -- Rated games in this variant and how they went.
    games      BIGINT           NOT NULL DEFAULT 0,
    wins       BIGINT           NOT NULL DEFAULT 0,
    draws      BIGINT           NOT NULL DEFAULT 0,
    losses     BIGINT           NOT NULL DEFAULT 0,
    PRIMARY KEY (player, variant)
);

CREATE INDEX ratings_board ON ratings (variant, rating DESC);
