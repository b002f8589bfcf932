-- Version 13: bots in the engines' league. A bot account enters a variant's league (and may
-- leave it and come back); the round robin pairs the levels and the bots entered. A row stays
-- when its bot leaves, so that its counted games keep its name; `entered_ms` orders the
-- entrants (the first entry's time, kept on a return).
CREATE TABLE league_bots (
    variant    TEXT    NOT NULL,
    player     BIGINT  NOT NULL REFERENCES players (id),
    name       TEXT    NOT NULL,
    entered_ms BIGINT  NOT NULL,
    -- 1 while the bot is in the league, 0 once it has left.
    entered    BIGINT  NOT NULL,
    PRIMARY KEY (variant, player)
);
