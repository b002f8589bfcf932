-- Version 11: bot accounts. An account that turned itself into a bot (for good) keeps when it
-- did; NULL for a person's account.
ALTER TABLE accounts ADD COLUMN bot_ms INTEGER;
