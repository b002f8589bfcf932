//! Accounts and their devices in PostgreSQL: the same rows as SQLite's; a username is unique
//! across every node by the unique index on its lower-cased key.

use noughts_protocol::PlayerId;
use postgres::Row;

use super::Postgres;
use crate::store::accounts::{
    AccountBackend, NewAccount, StoredAccount, StoredDevice, token_hash as hash,
};
use crate::store::records::{StoreError, TokenHash};
use crate::store::rows::{int, uint};

fn stored(row: &Row) -> Result<StoredAccount, StoreError> {
    Ok(StoredAccount {
        player: PlayerId(uint(row.try_get(0)?)),
        username: row.try_get(1)?,
        phc: row.try_get(2)?,
        closed_ms: row.try_get::<_, Option<i64>>(3)?.map(uint),
        bot: row.try_get::<_, Option<i64>>(4)?.is_some(),
    })
}

impl AccountBackend for Postgres {
    fn create_account(
        &mut self,
        account: &NewAccount,
        now: u64,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        self.conn.execute(
            "UPDATE accounts SET username_key = NULL, username_skeleton = NULL \
             WHERE (username_key = $1 OR username_skeleton = $2) AND closed_ms <= $3",
            &[&account.key, &account.skeleton, &int(freed_before)],
        )?;
        let added = self.conn.execute(
            "INSERT INTO accounts \
             (player, username, username_key, username_skeleton, phc, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            &[
                &int(account.player.0),
                &account.username,
                &account.key,
                &account.skeleton,
                &account.phc,
                &int(now),
            ],
        )?;
        Ok(added == 1)
    }

    fn name_taken(
        &mut self,
        key: &str,
        skeleton: &str,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_opt(
                "SELECT 1 FROM accounts WHERE (username_key = $1 OR username_skeleton = $2) \
                 AND (closed_ms IS NULL OR closed_ms > $3) LIMIT 1",
                &[&key, &skeleton, &int(freed_before)],
            )?
            .is_some())
    }

    fn account_by_key(&mut self, key: &str) -> Result<Option<StoredAccount>, StoreError> {
        self.conn
            .query_opt(
                "SELECT player, username, phc, closed_ms, bot_ms FROM accounts WHERE username_key = $1",
                &[&key],
            )?
            .as_ref()
            .map(stored)
            .transpose()
    }

    fn account_of(&mut self, player: PlayerId) -> Result<Option<StoredAccount>, StoreError> {
        self.conn
            .query_opt(
                "SELECT player, username, phc, closed_ms, bot_ms FROM accounts WHERE player = $1",
                &[&int(player.0)],
            )?
            .as_ref()
            .map(stored)
            .transpose()
    }

    fn set_password(&mut self, player: PlayerId, phc: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE accounts SET phc = $2 WHERE player = $1",
            &[&int(player.0), &phc],
        )?;
        Ok(())
    }

    fn make_bot(&mut self, player: PlayerId, now: u64) -> Result<bool, StoreError> {
        let made = self.conn.execute(
            "UPDATE accounts SET bot_ms = $2 WHERE player = $1 AND bot_ms IS NULL \
             AND closed_ms IS NULL",
            &[&int(player.0), &int(now)],
        )?;
        Ok(made == 1)
    }

    fn in_live_rated_game(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        let row = self.conn.query_one(
            "SELECT EXISTS (SELECT 1 FROM games WHERE rated AND ended_ms IS NULL \
             AND (x_player = $1 OR o_player = $1))",
            &[&int(player.0)],
        )?;
        Ok(row.get(0))
    }

    fn close_account(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE accounts SET closed_ms = $2 WHERE player = $1",
            &[&int(player.0), &int(now)],
        )?;
        Ok(())
    }

    fn issue_token(
        &mut self,
        player: PlayerId,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO tokens (hash, player, used_ms) VALUES ($1, $2, $3)",
            &[&&token.0[..], &int(player.0), &int(now)],
        )?;
        Ok(())
    }

    fn add_device(&mut self, player: PlayerId, device: &StoredDevice) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO devices (id, player, label, created_ms, last_seen_ms, token, network) \
             VALUES ($1, $2, $3, $4, $4, $5, $6)",
            &[
                &int(device.id),
                &int(player.0),
                &device.label,
                &int(device.created_ms),
                &&device.token.0[..],
                &device.network,
            ],
        )?;
        Ok(())
    }

    fn device_rotated(
        &mut self,
        old: TokenHash,
        fresh: TokenHash,
        now: u64,
        network: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE devices SET previous = token, token = $2, last_seen_ms = $3, network = $4 \
             WHERE token = $1 OR previous = $1",
            &[&&old.0[..], &&fresh.0[..], &int(now), &network],
        )?;
        Ok(())
    }

    fn devices(&mut self, player: PlayerId) -> Result<Vec<StoredDevice>, StoreError> {
        let rows = self.conn.query(
            "SELECT id, label, created_ms, last_seen_ms, token, previous, network FROM devices \
             WHERE player = $1 ORDER BY created_ms DESC, id",
            &[&int(player.0)],
        )?;
        rows.iter()
            .map(|row| {
                Ok(StoredDevice {
                    id: uint(row.try_get(0)?),
                    label: row.try_get(1)?,
                    created_ms: uint(row.try_get(2)?),
                    last_seen_ms: uint(row.try_get(3)?),
                    token: hash(row.try_get(4)?)?,
                    previous: row
                        .try_get::<_, Option<Vec<u8>>>(5)?
                        .map(hash)
                        .transpose()?,
                    network: row.try_get(6)?,
                })
            })
            .collect()
    }

    fn drop_device(&mut self, player: PlayerId, device: u64) -> Result<bool, StoreError> {
        self.conn.execute(
            "DELETE FROM tokens WHERE hash IN (SELECT token FROM devices \
             WHERE player = $1 AND id = $2 UNION SELECT previous FROM devices \
             WHERE player = $1 AND id = $2)",
            &[&int(player.0), &int(device)],
        )?;
        let gone = self.conn.execute(
            "DELETE FROM devices WHERE player = $1 AND id = $2",
            &[&int(player.0), &int(device)],
        )?;
        Ok(gone == 1)
    }

    fn drop_devices_except(
        &mut self,
        player: PlayerId,
        keep: Option<u64>,
    ) -> Result<(), StoreError> {
        let keep = keep.map_or(-1, int);
        self.conn.execute(
            "DELETE FROM devices WHERE player = $1 AND id <> $2",
            &[&int(player.0), &keep],
        )?;
        self.conn.execute(
            "DELETE FROM tokens WHERE player = $1 AND hash NOT IN (\
             SELECT token FROM devices WHERE player = $1 UNION \
             SELECT previous FROM devices WHERE player = $1 AND previous IS NOT NULL)",
            &[&int(player.0)],
        )?;
        Ok(())
    }

    fn add_device_cookie(
        &mut self,
        player: PlayerId,
        cookie: TokenHash,
        now: u64,
        keep: u32,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO device_cookies (hash, player, created_ms) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
            &[&&cookie.0[..], &int(player.0), &int(now)],
        )?;
        self.conn.execute(
            "DELETE FROM device_cookies WHERE player = $1 AND hash NOT IN \
             (SELECT hash FROM device_cookies WHERE player = $1 \
             ORDER BY created_ms DESC, hash LIMIT $2)",
            &[&int(player.0), &i64::from(keep)],
        )?;
        Ok(())
    }

    fn device_cookie_player(&mut self, cookie: TokenHash) -> Result<Option<PlayerId>, StoreError> {
        Ok(self
            .conn
            .query_opt(
                "SELECT player FROM device_cookies WHERE hash = $1",
                &[&&cookie.0[..]],
            )?
            .map(|row| row.try_get::<_, i64>(0))
            .transpose()?
            .map(|player| PlayerId(uint(player))))
    }
}
