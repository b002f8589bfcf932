-- Arenas. An arena pairs its players as they come free between its start and its
-- end; each game it started is an ordinary game, listed here once with whether it has counted,
-- so that a restart (or another node) counts every finished game exactly once. The podium is
-- kept for good, for the winners' profiles.
CREATE TABLE arenas (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    variant      TEXT    NOT NULL,
    initial_ms   INTEGER NOT NULL,
    increment_ms INTEGER NOT NULL,
    start_ms     INTEGER NOT NULL,
    end_ms       INTEGER NOT NULL,
    -- The invite code of a private arena.
    code         TEXT,
    -- The account that created it; NULL for the server's own, scheduled ones.
    creator      INTEGER REFERENCES players (id),
    creator_name TEXT,
    -- The schedule's slot of a scheduled arena ("hourly-classic-…"): one arena a slot, whichever
    -- node schedules it first.
    slot         TEXT UNIQUE,
    bots_only    INTEGER NOT NULL DEFAULT 0,
    -- Set once every game has counted and the podium is kept.
    finished_ms  INTEGER
);

CREATE INDEX arenas_unfinished ON arenas (id) WHERE finished_ms IS NULL;

CREATE TABLE arena_players (
    arena     INTEGER NOT NULL REFERENCES arenas (id),
    player    INTEGER NOT NULL REFERENCES players (id),
    name      TEXT    NOT NULL,
    score     INTEGER NOT NULL DEFAULT 0,
    -- Wins in a row: from two on, the player is on fire.
    streak    INTEGER NOT NULL DEFAULT 0,
    games     INTEGER NOT NULL DEFAULT 0,
    wins      INTEGER NOT NULL DEFAULT 0,
    draws     INTEGER NOT NULL DEFAULT 0,
    withdrawn INTEGER NOT NULL DEFAULT 0,
    joined_ms INTEGER NOT NULL,
    -- The opponent of the player's last game, not paired with them twice in a row.
    last_opponent INTEGER,
    PRIMARY KEY (arena, player)
);

CREATE TABLE arena_games (
    game    INTEGER PRIMARY KEY,
    arena   INTEGER NOT NULL REFERENCES arenas (id),
    x       INTEGER NOT NULL,
    o       INTEGER NOT NULL,
    counted INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX arena_games_by_arena ON arena_games (arena, game);

CREATE TABLE arena_podiums (
    arena  INTEGER NOT NULL REFERENCES arenas (id),
    place  INTEGER NOT NULL,
    player INTEGER NOT NULL REFERENCES players (id),
    score  INTEGER NOT NULL,
    PRIMARY KEY (arena, place)
);

CREATE INDEX arena_podiums_by_player ON arena_podiums (player, arena);
