//! The [`Store`]'s calls for accounts and their devices, each a read or a write of
//! [`super::accounts::AccountBackend`]'s facts.

use noughts_protocol::PlayerId;

use super::accounts::{BecameBot, NewAccount, StoredAccount, StoredDevice};
use super::queue::Store;
use super::records::{StoreError, TokenHash, now_ms};

impl Store {
    /// Makes a guest an account; false if the username is taken. Durable when it answers.
    pub(crate) async fn create_account(
        &self,
        account: NewAccount,
        hold_ms: u64,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let freed_before = now.saturating_sub(hold_ms);
        self.write("create account", move |db| {
            let made = db.create_account(&account, now, freed_before)?;
            if made {
                // The account's name is its username from now on, in every record too.
                db.rename_player(account.player, &account.username)?;
            }
            Ok(made)
        })
        .await
    }

    /// Whether a username is taken: its key or its skeleton held by an open account, or by one
    /// closed less than `hold_ms` ago.
    pub(crate) async fn name_taken(
        &self,
        key: String,
        skeleton: String,
        hold_ms: u64,
    ) -> Result<bool, StoreError> {
        let freed_before = now_ms().saturating_sub(hold_ms);
        self.read(move |db| db.name_taken(&key, &skeleton, freed_before))
            .await
    }

    pub(crate) async fn account_by_key(
        &self,
        key: String,
    ) -> Result<Option<StoredAccount>, StoreError> {
        self.read(move |db| db.account_by_key(&key)).await
    }

    pub(crate) async fn account_of(
        &self,
        player: PlayerId,
    ) -> Result<Option<StoredAccount>, StoreError> {
        self.read(move |db| db.account_of(player)).await
    }

    /// A new signed-in device of `player`'s, with its first token; the token is issued too
    /// unless `issued` (a guest registering keeps the token it holds).
    pub(crate) async fn add_device(
        &self,
        player: PlayerId,
        device: StoredDevice,
        issued: bool,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        self.write("add device", move |db| {
            if !issued {
                db.issue_token(player, device.token, now)?;
            }
            db.add_device(player, &device)
        })
        .await
    }

    /// The device that held `old` now holds `fresh`, used from `network` (as its owner sees it).
    pub(crate) fn device_rotated(&self, old: TokenHash, fresh: TokenHash, network: String) {
        let now = now_ms();
        self.write_later("device rotated", move |db| {
            db.device_rotated(old, fresh, now, &network)
        });
    }

    pub(crate) async fn devices(&self, player: PlayerId) -> Result<Vec<StoredDevice>, StoreError> {
        self.read(move |db| db.devices(player)).await
    }

    pub(crate) async fn drop_device(
        &self,
        player: PlayerId,
        device: u64,
    ) -> Result<bool, StoreError> {
        self.write("drop device", move |db| db.drop_device(player, device))
            .await
    }

    /// A new password: every device but `keep` is forgotten and its tokens revoked.
    pub(crate) async fn change_password(
        &self,
        player: PlayerId,
        phc: String,
        keep: Option<u64>,
    ) -> Result<(), StoreError> {
        self.write("change password", move |db| {
            db.set_password(player, &phc)?;
            db.drop_devices_except(player, keep)
        })
        .await
    }

    /// Makes `player`'s account a bot account, for good, unless it has played rated games: the
    /// rule is checked in the same transaction as the change. Durable when it answers.
    pub(crate) async fn become_bot(&self, player: PlayerId) -> Result<BecameBot, StoreError> {
        let now = now_ms();
        self.write("become bot", move |db| {
            match db.account_of(player)? {
                Some(account) if account.closed_ms.is_some() => return Ok(BecameBot::NoAccount),
                Some(account) if account.bot => return Ok(BecameBot::AlreadyBot),
                Some(_) => {}
                None => return Ok(BecameBot::NoAccount),
            }
            // A rated game still being played counts: it would end rated after the change.
            let ratings = db.ratings(player)?;
            if db.in_live_rated_game(player)?
                || noughts_protocol::Variant::ALL
                    .into_iter()
                    .any(|variant| ratings.games(variant) > 0)
            {
                return Ok(BecameBot::HasRatedGames);
            }
            Ok(if db.make_bot(player, now)? {
                BecameBot::Made
            } else {
                BecameBot::AlreadyBot
            })
        })
        .await
    }

    /// Closes the account: every device forgotten, every token revoked.
    pub(crate) async fn close_account(&self, player: PlayerId) -> Result<(), StoreError> {
        let now = now_ms();
        self.write("close account", move |db| {
            db.drop_devices_except(player, None)?;
            db.revoke_tokens(player)?;
            db.close_account(player, now)
        })
        .await
    }

    /// Keeps a device cookie given to a device of `player`'s (its hash), and at most `keep` of
    /// the player's newest.
    pub(crate) async fn add_device_cookie(
        &self,
        player: PlayerId,
        cookie: TokenHash,
        keep: u32,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        self.write("add device cookie", move |db| {
            db.add_device_cookie(player, cookie, now, keep)
        })
        .await
    }

    /// The player a device cookie was given to.
    pub(crate) async fn device_cookie_player(
        &self,
        cookie: TokenHash,
    ) -> Result<Option<PlayerId>, StoreError> {
        self.read(move |db| db.device_cookie_player(cookie)).await
    }
}
