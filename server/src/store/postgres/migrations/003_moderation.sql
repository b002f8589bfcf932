-- Every moderation fact, in order: players' mutes, blocks and reports; operators' bans, chat
-- mutes, reserved names and ended games, with who did it, when and why (the audit). Nodes read
-- it forward from the last id they applied.
CREATE TABLE moderation_log (
    id BIGSERIAL PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    kind TEXT NOT NULL,
    actor BIGINT,
    operator TEXT,
    target BIGINT,
    game BIGINT,
    detail TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    until_ms BIGINT
);
CREATE INDEX moderation_log_game ON moderation_log (game) WHERE game IS NOT NULL;
