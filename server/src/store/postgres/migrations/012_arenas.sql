-- Arenas. An arena pairs its players as they come free between its start and its
-- end; each game it started is an ordinary game, listed here once with whether it has counted,
-- so that a restart (or another node) counts every finished game exactly once. The podium is
-- kept for good, for the winners' profiles.
CREATE TABLE arenas (
    id           BIGINT PRIMARY KEY,
    name         TEXT    NOT NULL,
    variant      TEXT    NOT NULL,
    initial_ms   BIGINT  NOT NULL,
    increment_ms BIGINT  NOT NULL,
    start_ms     BIGINT  NOT NULL,
    end_ms       BIGINT  NOT NULL,
    -- The invite code of a private arena.
    code         TEXT,
    -- The account that created it; NULL for the server's own, scheduled ones.
    creator      BIGINT  REFERENCES players (id),
    creator_name TEXT,
    -- The schedule's slot of a scheduled arena ("hourly-classic-…"): one arena a slot, whichever
    -- node schedules it first.
    slot         TEXT UNIQUE,
    bots_only    BIGINT  NOT NULL DEFAULT 0,
    -- Set once every game has counted and the podium is kept.
    finished_ms  BIGINT
);

CREATE INDEX arenas_unfinished ON arenas (id) WHERE finished_ms IS NULL;

CREATE TABLE arena_players (
    arena     BIGINT  NOT NULL REFERENCES arenas (id),
    player    BIGINT  NOT NULL REFERENCES players (id),
    name      TEXT    NOT NULL,
    score     BIGINT  NOT NULL DEFAULT 0,
    -- Wins in a row: from two on, the player is on fire.
    streak    BIGINT  NOT NULL DEFAULT 0,
    games     BIGINT  NOT NULL DEFAULT 0,
    wins      BIGINT  NOT NULL DEFAULT 0,
    draws     BIGINT  NOT NULL DEFAULT 0,
    withdrawn BIGINT  NOT NULL DEFAULT 0,
    joined_ms BIGINT  NOT NULL,
    -- The opponent of the player's last game, not paired with them twice in a row.
    last_opponent BIGINT,
    PRIMARY KEY (arena, player)
);

CREATE TABLE arena_games (
    game    BIGINT  PRIMARY KEY,
    arena   BIGINT  NOT NULL REFERENCES arenas (id),
    x       BIGINT  NOT NULL,
    o       BIGINT  NOT NULL,
    counted BIGINT  NOT NULL DEFAULT 0
);

CREATE INDEX arena_games_by_arena ON arena_games (arena, game);

CREATE TABLE arena_podiums (
    arena  BIGINT  NOT NULL REFERENCES arenas (id),
    place  BIGINT  NOT NULL,
    player BIGINT  NOT NULL REFERENCES players (id),
    score  BIGINT  NOT NULL,
    PRIMARY KEY (arena, place)
);

CREATE INDEX arena_podiums_by_player ON arena_podiums (player, arena);
