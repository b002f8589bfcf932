-- Version 14: the engines' league keeps its table as its games end, so that a start reads the
-- table and not every game ever counted. Each variant's table stands on one `league_tables` row
-- and has a `league_lines` row per entrant (named as in `league_games`). The end of a league game
-- adds to its two lines, and the game that ends a round (every `round_games` games) moves the
-- ratings, in the transaction that stores the end. A database with counted games gets its table
-- built from them once, when it is first opened after this migration.
CREATE TABLE league_tables (
    variant       TEXT    PRIMARY KEY,
    -- The games of a rating period (a round of the levels' round robin); 0 until the league
    -- says.
    round_games   INTEGER NOT NULL,
    counted       INTEGER NOT NULL,
    -- The `n` of the game that closed the last rating period; 0 before the first.
    rated_through INTEGER NOT NULL,
    -- The last counted game's `n`, X and O (0 and NULL before the first).
    last_n        INTEGER NOT NULL,
    last_x        TEXT,
    last_o        TEXT
);

CREATE TABLE league_lines (
    variant    TEXT    NOT NULL,
    entrant    TEXT    NOT NULL,
    played     INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    -- Glicko-2, as the last rating period left them.
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    PRIMARY KEY (variant, entrant)
);
