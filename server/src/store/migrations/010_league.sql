-- Version 10: the engines' league. Every finished war game of the server's own between two AI
-- seats counts once, keyed by its game id, in the order `n` it was counted in: the standings and
-- the next pairing are read back from these rows after a restart or on another node. An entrant
-- is named as the league names it (an AI level, `medium`).
CREATE TABLE league_games (
    n        INTEGER PRIMARY KEY,
    game     INTEGER NOT NULL UNIQUE REFERENCES games (id),
    variant  TEXT    NOT NULL,
    x        TEXT    NOT NULL,
    o        TEXT    NOT NULL,
    -- `x` or `o`; NULL for a draw.
    winner   TEXT,
    ended_ms INTEGER NOT NULL
);

CREATE INDEX league_games_by_variant ON league_games (variant, n);
