-- Version 15: each arena's director fencing epoch. A node that takes an arena to direct it
-- raises the epoch by one; every write of its director (a player joining or withdrawing, a game
-- it pairs, the podium) carries the epoch it took and is refused under an older one, so that a
-- director that lost the arena (paused past its lease) writes nothing after another took it.
ALTER TABLE arenas ADD COLUMN director_epoch INTEGER NOT NULL DEFAULT 0;
