-- Version 6: what keeps strangers from imitating or locking out an account.
--
-- Usernames are unique by their skeleton (see `noughts_protocol::username_skeleton`): `reuse-x`
-- is taken while `reuse_x` is held. Usernames are ASCII, where the skeleton is, one character
-- at a time: `I` as `l`, then lower case, then `-` as `_`, `m` as `rn`, `0` as `o`, `1` as `l`.
-- Look-alikes registered before this version keep their names (still unique by key), and the
-- oldest of them holds the skeleton. A freed name holds none.
ALTER TABLE accounts ADD COLUMN username_skeleton TEXT;
UPDATE accounts
   SET username_skeleton = replace(replace(replace(replace(
       lower(replace(username, 'I', 'l')), '-', '_'), 'm', 'rn'), '0', 'o'), '1', 'l')
 WHERE username_key IS NOT NULL;
UPDATE accounts SET username_skeleton = NULL
 WHERE EXISTS (SELECT 1 FROM accounts AS earlier
                WHERE earlier.username_skeleton = accounts.username_skeleton
                  AND earlier.player < accounts.player);
CREATE UNIQUE INDEX accounts_by_skeleton ON accounts (username_skeleton);

-- Device cookies: a random value given to a device when it signs in, kept here as its SHA-256,
-- which later exempts that device from its username's wait after strangers' wrong passwords.
CREATE TABLE device_cookies (
    hash       BYTEA   PRIMARY KEY,
    player     BIGINT  NOT NULL REFERENCES players (id),
    created_ms BIGINT  NOT NULL
);

CREATE INDEX device_cookies_by_player ON device_cookies (player, created_ms);
