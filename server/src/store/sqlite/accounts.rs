//! Accounts and their devices in SQLite.

use noughts_protocol::PlayerId;
use rusqlite::{OptionalExtension, Row, params};

use super::Sqlite;
use crate::store::accounts::{
    AccountBackend, NewAccount, StoredAccount, StoredDevice, token_hash as hash,
};
use crate::store::records::{StoreError, TokenHash};
use crate::store::rows::{int, uint};

/// An account read from a row of `player, username, phc, closed_ms, bot_ms`.
fn account(row: &Row<'_>) -> rusqlite::Result<StoredAccount> {
    Ok(StoredAccount {
        player: PlayerId(uint(row.get(0)?)),
        username: row.get(1)?,
        phc: row.get(2)?,
        closed_ms: row.get::<_, Option<i64>>(3)?.map(uint),
        bot: row.get::<_, Option<i64>>(4)?.is_some(),
    })
}

/// The tokens a device holds, for `IN` lists.
const DEVICE_TOKENS: &str = "SELECT token FROM devices WHERE player = ?1 \
     UNION SELECT previous FROM devices WHERE player = ?1 AND previous IS NOT NULL";

impl AccountBackend for Sqlite {
    fn create_account(
        &mut self,
        account: &NewAccount,
        now: u64,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        self.db
            .prepare_cached(
                "UPDATE accounts SET username_key = NULL, username_skeleton = NULL \
                 WHERE (username_key = ?1 OR username_skeleton = ?2) AND closed_ms <= ?3",
            )?
            .execute(params![account.key, account.skeleton, int(freed_before)])?;
        let added = self
            .db
            .prepare_cached(
                "INSERT INTO accounts \
                 (player, username, username_key, username_skeleton, phc, created_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                int(account.player.0),
                account.username,
                account.key,
                account.skeleton,
                account.phc,
                int(now)
            ])?;
        Ok(added == 1)
    }

    fn name_taken(
        &mut self,
        key: &str,
        skeleton: &str,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT 1 FROM accounts WHERE (username_key = ?1 OR username_skeleton = ?2) \
                 AND (closed_ms IS NULL OR closed_ms > ?3) LIMIT 1",
            )?
            .query_row(params![key, skeleton, int(freed_before)], |_| Ok(()))
            .optional()?
            .is_some())
    }

    fn account_by_key(&mut self, key: &str) -> Result<Option<StoredAccount>, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT player, username, phc, closed_ms, bot_ms FROM accounts WHERE username_key = ?1",
            )?
            .query_row([key], account)
            .optional()?)
    }

    fn account_of(&mut self, player: PlayerId) -> Result<Option<StoredAccount>, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT player, username, phc, closed_ms, bot_ms FROM accounts WHERE player = ?1",
            )?
            .query_row([int(player.0)], account)
            .optional()?)
    }

    fn set_password(&mut self, player: PlayerId, phc: &str) -> Result<(), StoreError> {
        self.db
            .prepare_cached("UPDATE accounts SET phc = ?2 WHERE player = ?1")?
            .execute(params![int(player.0), phc])?;
        Ok(())
    }

    fn make_bot(&mut self, player: PlayerId, now: u64) -> Result<bool, StoreError> {
        let made = self
            .db
            .prepare_cached(
                "UPDATE accounts SET bot_ms = ?2 WHERE player = ?1 AND bot_ms IS NULL \
                 AND closed_ms IS NULL",
            )?
            .execute(params![int(player.0), int(now)])?;
        Ok(made == 1)
    }

    fn in_live_rated_game(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM games WHERE rated = 1 AND ended_ms IS NULL \
                 AND (x_player = ?1 OR o_player = ?1))",
            )?
            .query_row(params![int(player.0)], |row| row.get(0))?)
    }

    fn close_account(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        self.db
            .prepare_cached("UPDATE accounts SET closed_ms = ?2 WHERE player = ?1")?
            .execute(params![int(player.0), int(now)])?;
        Ok(())
    }

    fn issue_token(
        &mut self,
        player: PlayerId,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached("INSERT INTO tokens (hash, player, used_ms) VALUES (?1, ?2, ?3)")?
            .execute(params![&token.0[..], int(player.0), int(now)])?;
        Ok(())
    }

    fn add_device(&mut self, player: PlayerId, device: &StoredDevice) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "INSERT INTO devices (id, player, label, created_ms, last_seen_ms, token, network) \
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
            )?
            .execute(params![
                int(device.id),
                int(player.0),
                device.label,
                int(device.created_ms),
                &device.token.0[..],
                device.network,
            ])?;
        Ok(())
    }

    fn device_rotated(
        &mut self,
        old: TokenHash,
        fresh: TokenHash,
        now: u64,
        network: &str,
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "UPDATE devices SET previous = token, token = ?2, last_seen_ms = ?3, network = ?4 \
                 WHERE token = ?1 OR previous = ?1",
            )?
            .execute(params![&old.0[..], &fresh.0[..], int(now), network])?;
        Ok(())
    }

    fn devices(&mut self, player: PlayerId) -> Result<Vec<StoredDevice>, StoreError> {
        let mut statement = self.db.prepare_cached(
            "SELECT id, label, created_ms, last_seen_ms, token, previous, network FROM devices \
             WHERE player = ?1 ORDER BY created_ms DESC, id",
        )?;
        let rows = statement.query_map([int(player.0)], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<String>>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, i64>(3)?,
                row.get::<_, Vec<u8>>(4)?,
                row.get::<_, Option<Vec<u8>>>(5)?,
                row.get::<_, Option<String>>(6)?,
            ))
        })?;
        let mut devices = Vec::new();
        for row in rows {
            let (id, label, created, seen, token, previous, network) = row?;
            devices.push(StoredDevice {
                id: uint(id),
                label,
                created_ms: uint(created),
                last_seen_ms: uint(seen),
                token: hash(token)?,
                previous: previous.map(hash).transpose()?,
                network,
            });
        }
        Ok(devices)
    }

    fn drop_device(&mut self, player: PlayerId, device: u64) -> Result<bool, StoreError> {
        self.db
            .prepare_cached(
                "DELETE FROM tokens WHERE hash IN (SELECT token FROM devices \
                 WHERE player = ?1 AND id = ?2 UNION SELECT previous FROM devices \
                 WHERE player = ?1 AND id = ?2)",
            )?
            .execute(params![int(player.0), int(device)])?;
        let gone = self
            .db
            .prepare_cached("DELETE FROM devices WHERE player = ?1 AND id = ?2")?
            .execute(params![int(player.0), int(device)])?;
        Ok(gone == 1)
    }

    fn drop_devices_except(
        &mut self,
        player: PlayerId,
        keep: Option<u64>,
    ) -> Result<(), StoreError> {
        // A device id is positive, so -1 keeps none.
        let keep = keep.map_or(-1, int);
        self.db
            .prepare_cached("DELETE FROM devices WHERE player = ?1 AND id <> ?2")?
            .execute(params![int(player.0), keep])?;
        self.db
            .prepare_cached(&format!(
                "DELETE FROM tokens WHERE player = ?1 AND hash NOT IN ({DEVICE_TOKENS})"
            ))?
            .execute([int(player.0)])?;
        Ok(())
    }

    fn add_device_cookie(
        &mut self,
        player: PlayerId,
        cookie: TokenHash,
        now: u64,
        keep: u32,
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "INSERT INTO device_cookies (hash, player, created_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![&cookie.0[..], int(player.0), int(now)])?;
        self.db
            .prepare_cached(
                "DELETE FROM device_cookies WHERE player = ?1 AND hash NOT IN \
                 (SELECT hash FROM device_cookies WHERE player = ?1 \
                 ORDER BY created_ms DESC, hash LIMIT ?2)",
            )?
            .execute(params![int(player.0), i64::from(keep)])?;
        Ok(())
    }

    fn device_cookie_player(&mut self, cookie: TokenHash) -> Result<Option<PlayerId>, StoreError> {
        Ok(self
            .db
            .prepare_cached("SELECT player FROM device_cookies WHERE hash = ?1")?
            .query_row([&cookie.0[..]], |row| row.get::<_, i64>(0))
            .optional()?
            .map(|player| PlayerId(uint(player))))
    }
}
