-- Version 2: rated games and Glicko-2 ratings per variant.

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
-- In a finished rated game, each player's rating before it and the change it made.
ALTER TABLE games ADD COLUMN x_rating REAL;
ALTER TABLE games ADD COLUMN x_rating_change REAL;
ALTER TABLE games ADD COLUMN o_rating REAL;
ALTER TABLE games ADD COLUMN o_rating_change REAL;

CREATE TABLE ratings (
    player     INTEGER NOT NULL REFERENCES players (id),
    variant    TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    -- Rated games in this variant and how they went.
    games      INTEGER NOT NULL DEFAULT 0,
    wins       INTEGER NOT NULL DEFAULT 0,
    draws      INTEGER NOT NULL DEFAULT 0,
    losses     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player, variant)
) WITHOUT ROWID;

CREATE INDEX ratings_board ON ratings (variant, rating DESC);
