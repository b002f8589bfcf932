//! Accounts and their devices in memory. Each write checks everything before it changes
//! anything, so a refused write leaves nothing half done.

use noughts_protocol::PlayerId;

use super::Memory;
use super::tables::Change;
use crate::rules::sitter::Sitter;
use crate::store::accounts::{AccountBackend, NewAccount, StoredAccount, StoredDevice};
use crate::store::records::{StoreError, TokenHash};

impl Memory {
    /// Revokes each of `player`'s tokens for which `revoke` holds.
    fn revoke_where(&mut self, player: PlayerId, revoke: impl Fn(TokenHash) -> bool) {
        for token in self.tables.tokens_of(player) {
            if revoke(token) {
                self.tables.change(Change::Token(token, None));
            }
        }
    }
}

/// Whether `device` holds `token`, now or as its previous one.
fn holds(device: &StoredDevice, token: TokenHash) -> bool {
    device.token == token || device.previous == Some(token)
}

impl AccountBackend for Memory {
    fn create_account(
        &mut self,
        account: &NewAccount,
        _now: u64,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        let accounts = &mut self.accounts;
        let holders = [
            accounts.by_key.get(&account.key).copied(),
            accounts.by_skeleton.get(&account.skeleton).copied(),
        ];
        for holder in holders.into_iter().flatten() {
            let (held, key) = accounts
                .accounts
                .get_mut(&holder)
                .ok_or_else(|| StoreError::Corrupt("a username without its account".into()))?;
            if held.closed_ms.is_none_or(|closed| closed > freed_before) {
                return Ok(false);
            }
            *key = None;
            accounts.by_key.retain(|_, player| *player != holder);
            accounts.by_skeleton.retain(|_, player| *player != holder);
        }
        if accounts.accounts.contains_key(&account.player) {
            return Ok(false);
        }
        let stored = StoredAccount {
            player: account.player,
            username: account.username.clone(),
            phc: account.phc.clone(),
            closed_ms: None,
            bot: false,
        };
        accounts.by_key.insert(account.key.clone(), account.player);
        (accounts.by_skeleton).insert(account.skeleton.clone(), account.player);
        accounts
            .accounts
            .insert(account.player, (stored, Some(account.key.clone())));
        Ok(true)
    }

    fn name_taken(
        &mut self,
        key: &str,
        skeleton: &str,
        freed_before: u64,
    ) -> Result<bool, StoreError> {
        let accounts = &self.accounts;
        let holders = [accounts.by_key.get(key), accounts.by_skeleton.get(skeleton)];
        Ok(holders
            .into_iter()
            .flatten()
            .filter_map(|holder| accounts.accounts.get(holder))
            .any(|(held, _)| held.closed_ms.is_none_or(|closed| closed > freed_before)))
    }

    fn account_by_key(&mut self, key: &str) -> Result<Option<StoredAccount>, StoreError> {
        let accounts = &self.accounts;
        Ok(accounts
            .by_key
            .get(key)
            .and_then(|player| accounts.accounts.get(player))
            .map(|(account, _)| account.clone()))
    }

    fn account_of(&mut self, player: PlayerId) -> Result<Option<StoredAccount>, StoreError> {
        Ok(self
            .accounts
            .accounts
            .get(&player)
            .map(|(account, _)| account.clone()))
    }

    fn set_password(&mut self, player: PlayerId, phc: &str) -> Result<(), StoreError> {
        if let Some((account, _)) = self.accounts.accounts.get_mut(&player) {
            phc.clone_into(&mut account.phc);
        }
        Ok(())
    }

    fn make_bot(&mut self, player: PlayerId, _now: u64) -> Result<bool, StoreError> {
        match self.accounts.accounts.get_mut(&player) {
            Some((account, _)) if !account.bot && account.closed_ms.is_none() => {
                account.bot = true;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn in_live_rated_game(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        Ok(self.tables.games.values().any(|game| {
            let start = &game.row.start;
            game.row.ended_ms.is_none()
                && start.rated
                && start.seats.contains(&Sitter::Human(player))
        }))
    }

    fn close_account(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        if let Some((account, _)) = self.accounts.accounts.get_mut(&player) {
            account.closed_ms = Some(now);
        }
        Ok(())
    }

    fn issue_token(
        &mut self,
        player: PlayerId,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        self.issue(token, player, now)
    }

    fn add_device(&mut self, player: PlayerId, device: &StoredDevice) -> Result<(), StoreError> {
        if self.accounts.devices.contains_key(&device.id) {
            return Err(StoreError::Refused("a device id is stored already".into()));
        }
        self.accounts
            .devices
            .insert(device.id, (player, device.clone()));
        Ok(())
    }

    fn device_rotated(
        &mut self,
        old: TokenHash,
        fresh: TokenHash,
        now: u64,
        network: &str,
    ) -> Result<(), StoreError> {
        for (_, device) in self.accounts.devices.values_mut() {
            if holds(device, old) {
                device.previous = Some(device.token);
                device.token = fresh;
                device.last_seen_ms = now;
                device.network = Some(network.to_owned());
            }
        }
        Ok(())
    }

    fn devices(&mut self, player: PlayerId) -> Result<Vec<StoredDevice>, StoreError> {
        let mut devices: Vec<StoredDevice> = (self.accounts.devices.values())
            .filter(|(owner, _)| *owner == player)
            .map(|(_, device)| device.clone())
            .collect();
        devices.sort_by_key(|device| (std::cmp::Reverse(device.created_ms), device.id));
        Ok(devices)
    }

    fn drop_device(&mut self, player: PlayerId, device: u64) -> Result<bool, StoreError> {
        let Some((owner, gone)) = self.accounts.devices.get(&device).cloned() else {
            return Ok(false);
        };
        if owner != player {
            return Ok(false);
        }
        self.accounts.devices.remove(&device);
        self.revoke_where(player, |token| holds(&gone, token));
        Ok(true)
    }

    fn drop_devices_except(
        &mut self,
        player: PlayerId,
        keep: Option<u64>,
    ) -> Result<(), StoreError> {
        (self.accounts.devices).retain(|id, (owner, _)| *owner != player || Some(*id) == keep);
        let kept = keep.and_then(|id| self.accounts.devices.get(&id).map(|(_, d)| d.clone()));
        self.revoke_where(player, |token| {
            !kept.as_ref().is_some_and(|device| holds(device, token))
        });
        Ok(())
    }

    fn add_device_cookie(
        &mut self,
        player: PlayerId,
        cookie: TokenHash,
        now: u64,
        keep: u32,
    ) -> Result<(), StoreError> {
        let cookies = &mut self.accounts.cookies;
        cookies.entry(cookie).or_insert((player, now));
        let mut own: Vec<(u64, TokenHash)> = (cookies.iter())
            .filter(|(_, (owner, _))| *owner == player)
            .map(|(hash, (_, at))| (*at, *hash))
            .collect();
        own.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.0.cmp(&b.1.0)));
        for (_, gone) in own.into_iter().skip(keep as usize) {
            cookies.remove(&gone);
        }
        Ok(())
    }

    fn device_cookie_player(&mut self, cookie: TokenHash) -> Result<Option<PlayerId>, StoreError> {
        Ok(self
            .accounts
            .cookies
            .get(&cookie)
            .map(|(player, _)| *player))
    }
}
