//! Accounts and their devices in memory. Each write checks everything before it changes
//! anything, so a refused write leaves nothing half done.

use noughts_protocol::PlayerId;

use super::Memory;
use super::tables::Change;
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
        if let Some(holder) = accounts.by_key.get(&account.key).copied() {
            let (held, key) = accounts
                .accounts
                .get_mut(&holder)
                .ok_or_else(|| StoreError::Corrupt("a username without its account".into()))?;
            if held.closed_ms.is_none_or(|closed| closed > freed_before) {
                return Ok(false);
            }
            *key = None;
            accounts.by_key.remove(&account.key);
        }
        if accounts.accounts.contains_key(&account.player) {
            return Ok(false);
        }
        let stored = StoredAccount {
            player: account.player,
            username: account.username.clone(),
            phc: account.phc.clone(),
            closed_ms: None,
        };
        accounts.by_key.insert(account.key.clone(), account.player);
        accounts
            .accounts
            .insert(account.player, (stored, Some(account.key.clone())));
        Ok(true)
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
    ) -> Result<(), StoreError> {
        for (_, device) in self.accounts.devices.values_mut() {
            if holds(device, old) {
                device.previous = Some(device.token);
                device.token = fresh;
                device.last_seen_ms = now;
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
}
