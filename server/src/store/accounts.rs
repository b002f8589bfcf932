//! Accounts and their sessions in the store: [`AccountBackend`], what each database keeps of
//! them (a username unique by its skeleton, the password's PHC string, one row per signed-in
//! device with the token it holds now and the one before, and the hashes of device cookies).

use noughts_protocol::PlayerId;

use super::records::{StoreError, TokenHash};

/// An account as stored.
#[derive(Debug, Clone)]
pub(crate) struct StoredAccount {
    pub(crate) player: PlayerId,
    pub(crate) username: String,
    /// The password's argon2id PHC string (never the password).
    pub(crate) phc: String,
    /// When it was closed, if it was.
    pub(crate) closed_ms: Option<u64>,
    /// Whether it is a bot account (for good: nothing turns a bot back into a person).
    pub(crate) bot: bool,
}

/// What became of a request to make an account a bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BecameBot {
    /// It is a bot account from now on.
    Made,
    /// It was one already.
    AlreadyBot,
    /// It has played rated games: it stays a person's.
    HasRatedGames,
    /// The player has no open account.
    NoAccount,
}

/// A signed-in device of an account.
#[derive(Debug, Clone)]
pub(crate) struct StoredDevice {
    pub(crate) id: u64,
    pub(crate) label: Option<String>,
    pub(crate) created_ms: u64,
    pub(crate) last_seen_ms: u64,
    /// The token the device holds now.
    pub(crate) token: TokenHash,
    /// The token it held before, still working for the overlap after a trade.
    pub(crate) previous: Option<TokenHash>,
    /// The network it was last used from, as its owner is shown it (see
    /// [`crate::net::network::Network::shown`]).
    pub(crate) network: Option<String>,
}

/// A new account, as `register` asks for it.
#[derive(Debug, Clone)]
pub(crate) struct NewAccount {
    pub(crate) player: PlayerId,
    pub(crate) username: String,
    /// The key it is looked up by ([`noughts_protocol::username_key`]).
    pub(crate) key: String,
    /// The key it is unique by ([`noughts_protocol::username_skeleton`]).
    pub(crate) skeleton: String,
    pub(crate) phc: String,
}

/// What one database keeps of accounts. Every write runs inside the store's transaction.
pub(super) trait AccountBackend {
    /// Makes `account.player` an account, unless an account holds `account.key` or
    /// `account.skeleton` (a closed account lets go of both once it was closed at
    /// `freed_before` or earlier); false if either is taken.
    fn create_account(
        &mut self,
        account: &NewAccount,
        now: u64,
        freed_before: u64,
    ) -> Result<bool, StoreError>;
    /// Whether an account holds the username key `key` or the skeleton `skeleton`, counting a
    /// closed one only if it was closed after `freed_before`.
    fn name_taken(
        &mut self,
        key: &str,
        skeleton: &str,
        freed_before: u64,
    ) -> Result<bool, StoreError>;
    /// The account holding the username key `key`.
    fn account_by_key(&mut self, key: &str) -> Result<Option<StoredAccount>, StoreError>;
    /// `player`'s account, if it has one.
    fn account_of(&mut self, player: PlayerId) -> Result<Option<StoredAccount>, StoreError>;
    fn set_password(&mut self, player: PlayerId, phc: &str) -> Result<(), StoreError>;
    /// Makes `player`'s account a bot account, for good, unless it is one already: whether it
    /// became one now.
    fn make_bot(&mut self, player: PlayerId, now: u64) -> Result<bool, StoreError>;
    /// Whether `player` sits in a rated game still being played.
    fn in_live_rated_game(&mut self, player: PlayerId) -> Result<bool, StoreError>;
    /// Marks the account closed (its key is kept until freed).
    fn close_account(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError>;
    /// A new token of `player`'s, outside any device (as `add_player` issues its first).
    fn issue_token(
        &mut self,
        player: PlayerId,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError>;
    /// A new device of `player`'s, holding `token`.
    fn add_device(&mut self, player: PlayerId, device: &StoredDevice) -> Result<(), StoreError>;
    /// The device that held `old` (now or before) holds `fresh` now, used at `now` from
    /// `network`.
    fn device_rotated(
        &mut self,
        old: TokenHash,
        fresh: TokenHash,
        now: u64,
        network: &str,
    ) -> Result<(), StoreError>;
    /// `player`'s devices, newest first.
    fn devices(&mut self, player: PlayerId) -> Result<Vec<StoredDevice>, StoreError>;
    /// Forgets one device of `player`'s and revokes its tokens; false if it has no such device.
    fn drop_device(&mut self, player: PlayerId, device: u64) -> Result<bool, StoreError>;
    /// Forgets every device of `player`'s but `keep`, and revokes every token but `keep`'s.
    fn drop_devices_except(
        &mut self,
        player: PlayerId,
        keep: Option<u64>,
    ) -> Result<(), StoreError>;
    /// Keeps the hash of a device cookie given to a device of `player`'s, and forgets all but
    /// the newest `keep` of the player's cookies.
    fn add_device_cookie(
        &mut self,
        player: PlayerId,
        cookie: TokenHash,
        now: u64,
        keep: u32,
    ) -> Result<(), StoreError>;
    /// The player a device cookie was given to, if it is kept.
    fn device_cookie_player(&mut self, cookie: TokenHash) -> Result<Option<PlayerId>, StoreError>;
}

/// The device among `devices` that holds `token`, now or as its previous one.
pub(crate) fn device_holding(devices: &[StoredDevice], token: TokenHash) -> Option<&StoredDevice> {
    devices
        .iter()
        .find(|device| device.token == token || device.previous == Some(token))
}

/// A token hash as a column holds it.
pub(super) fn token_hash(bytes: Vec<u8>) -> Result<TokenHash, StoreError> {
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| StoreError::Corrupt("a token hash is not 32 bytes".to_owned()))?;
    Ok(TokenHash(bytes))
}
