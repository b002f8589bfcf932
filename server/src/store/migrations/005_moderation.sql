-- Every moderation fact, in order: players' mutes, blocks and reports; operators' bans, chat
-- mutes, reserved names and ended games, with who did it, when and why (the audit). Nodes read
-- it forward from the last id they applied.
CREATE TABLE moderation_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    actor INTEGER,
    operator TEXT,
    target INTEGER,
    game INTEGER,
    detail TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    until_ms INTEGER
);
CREATE INDEX moderation_log_game ON moderation_log (game) WHERE game IS NOT NULL;
