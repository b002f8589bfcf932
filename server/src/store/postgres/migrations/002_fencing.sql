-- The epoch of the lease under which a game was last written (0: never fenced). A write carrying
-- a lower epoch comes from a node that has lost the game, and is refused.
ALTER TABLE games ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0;
