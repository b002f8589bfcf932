//! Accounts: `hello` with a username and password (a new session for this device, welcomed as a
//! resume is), `register`, `sessions`, `revoke_session`, `change_password` and `close_account`.
//! Passwords travel only over TLS or from loopback; each guess is counted before it is checked;
//! nothing here logs a password or a token.

use std::sync::Arc;

use noughts_protocol::{
    ChangePassword, CloseAccount, Credentials, DEVICE_MAX_CHARS, ErrorCode, PROTOCOL_VERSION,
    PlayerId, RequestId, ServerMessage, SessionInfo, sanitize, username_key, username_skeleton,
    validate_username,
};
use tracing::{error, info};

use super::client::{Client, Reply, refuse};
use crate::account::{DEVICE_COOKIES_KEPT, Device, Verdict, in_words};
use crate::error::Refusal;
use crate::net::outbound::Close;
use crate::session::{Session, new_token};
use crate::store::{
    NewAccount, StoreError, StoredAccount, StoredDevice, TokenHash, device_holding, now_ms,
};

/// The one answer to a wrong password and to a username no open account holds.
fn bad_credentials() -> Reply {
    refuse(
        ErrorCode::BadCredentials,
        "that username and password do not match an account",
    )
}

/// The answer to a username another account holds, or one that looks like it.
fn username_taken() -> Reply {
    refuse(
        ErrorCode::UsernameTaken,
        "another account has that username, or one that looks like it",
    )
}

/// The refusal of a store that failed.
fn store_failed(err: &StoreError, doing: &'static str) -> Refusal {
    error!(cause = %err, doing, "an account request failed");
    Refusal::new(
        ErrorCode::Internal,
        "the server cannot do that now; try again",
    )
}

/// A device's label as a client gave it: made safe to show, trimmed and cut short.
fn label(device: Option<&str>) -> Option<String> {
    let text = sanitize(device?);
    let text: String = text.trim().chars().take(DEVICE_MAX_CHARS).collect();
    let text = text.trim_end();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The label of a device that names itself nowhere.
const UNKNOWN_DEVICE: &str = "unknown";

/// A new device id: random, and small enough for any JSON reader to hold exactly.
fn device_id() -> u64 {
    let mut bytes = [0u8; 8];
    crate::lobby::invite_code::fill_random(&mut bytes);
    (u64::from_le_bytes(bytes) & ((1 << 53) - 1)).max(1)
}

impl Client {
    /// Keeps the `User-Agent` this connection's upgrade carried, as a device's label.
    pub(crate) fn set_user_agent(&mut self, user_agent: Option<String>) {
        self.user_agent = label(user_agent.as_deref()).map(String::into_boxed_str);
    }

    /// The label of a device opened on this connection: what the client named it, else its
    /// `User-Agent`, else "unknown".
    fn device_label(&self, named: Option<String>) -> String {
        label(named.as_deref())
            .or_else(|| self.user_agent.as_deref().map(str::to_owned))
            .unwrap_or_else(|| UNKNOWN_DEVICE.to_owned())
    }

    /// Refuses a password on a connection that is not encrypted, unless it comes from loopback
    /// or the operator declared a TLS proxy in front.
    fn check_transport(&self) -> Reply {
        if self.credentials_allowed {
            return Ok(());
        }
        refuse(
            ErrorCode::InsecureTransport,
            "passwords are taken only over an encrypted connection (wss://)",
        )
    }

    /// Counts a guess at `key`'s password by `device` (if the account knows it), or refuses it
    /// while its account (or device) or address must wait.
    fn count_guess(&self, key: &str, device: Option<Device>) -> Reply {
        let attempts = &self.shared.accounts.attempts;
        match attempts.begin(key, self.network, device) {
            Verdict::Go => Ok(()),
            Verdict::Wait(wait) => refuse(
                ErrorCode::TooManyAttempts,
                format!(
                    "too many wrong passwords; retry after {} ms",
                    wait.as_millis().max(1)
                ),
            ),
        }
    }

    /// Checks `password` against `account` (an unknown one costs the same time), counting the
    /// guess first, under `device` if the account knows the device making it.
    async fn check_password(
        &self,
        key: &str,
        account: Option<&StoredAccount>,
        password: String,
        device: Option<Device>,
    ) -> Reply {
        self.count_guess(key, device)?;
        let phc = account
            .filter(|account| account.closed_ms.is_none())
            .map(|account| account.phc.clone());
        let accounts = &self.shared.accounts;
        if !accounts.passwords.verify(self.network, phc, password).await {
            return bad_credentials();
        }
        accounts.attempts.succeeded(key, self.network, device);
        Ok(())
    }

    /// The device cookie `presented`, if the store gave it to `player` (asked whoever the
    /// account is, so that an unknown username takes as long).
    async fn known_cookie(
        &self,
        player: Option<PlayerId>,
        presented: Option<&str>,
    ) -> Result<Option<TokenHash>, Refusal> {
        let Some(cookie) = presented else {
            return Ok(None);
        };
        let hash = TokenHash::of(cookie);
        match self.shared.store.device_cookie_player(hash).await {
            Ok(owner) => Ok((owner.is_some() && owner == player).then_some(hash)),
            Err(err) => Err(store_failed(&err, "sign in")),
        }
    }

    /// A new device cookie for a device of `player`'s, kept (hashed) by the store; `None` if
    /// the store cannot keep it now (the device then waits with strangers until it has one).
    async fn new_device_cookie(&self, player: PlayerId) -> Option<String> {
        let cookie = new_token();
        let kept = self.shared.store.add_device_cookie(
            player,
            TokenHash::of(&cookie),
            DEVICE_COOKIES_KEPT,
        );
        match kept.await {
            Ok(()) => Some(cookie),
            Err(err) => {
                error!(cause = %err, "cannot keep a device cookie");
                None
            }
        }
    }

    /// The PHC string of a new password for `username`; refused if the password is weak.
    async fn new_phc(&self, password: String, username: &str) -> Result<String, Refusal> {
        let passwords = &self.shared.accounts.passwords;
        let hashed = passwords
            .hash_new(self.network, password, username.to_owned())
            .await;
        match hashed {
            Ok(Ok(phc)) => Ok(phc),
            Ok(Err(weak)) => Err(Refusal::new(ErrorCode::WeakPassword, weak.reason())),
            Err(err) => {
                error!(cause = %err, "cannot hash a password");
                Err(Refusal::new(
                    ErrorCode::Internal,
                    "the server cannot take a password now; try again",
                ))
            }
        }
    }

    /// `hello` with a username and password: a new token for a new device of the account, then
    /// welcomed as a `hello` with that token is.
    pub(super) async fn sign_in(
        &mut self,
        id: Option<RequestId>,
        protocol: u32,
        credentials: Credentials,
    ) -> Reply {
        if protocol != PROTOCOL_VERSION {
            return refuse(
                ErrorCode::UnsupportedVersion,
                format!("this server speaks protocol {PROTOCOL_VERSION}, not {protocol}"),
            );
        }
        self.check_transport()?;
        // A sign-in is a hello: one from a banned range is refused before any password is read.
        self.check_address_allowed()?;
        let key = username_key(&credentials.username);
        let account = match self.shared.store.account_by_key(key.clone()).await {
            Ok(account) => account,
            Err(err) => return Err(store_failed(&err, "sign in")),
        };
        let presented = credentials.device_cookie;
        let player = account.as_ref().map(|account| account.player);
        let known = self.known_cookie(player, presented.as_deref()).await?;
        let device = known.map(|hash| Device::Cookie(hash.0));
        self.check_password(&key, account.as_ref(), credentials.password, device)
            .await?;
        let Some(account) = account else {
            return bad_credentials();
        };
        // A known device keeps its cookie; any other is given one.
        let cookie = match known {
            Some(_) => presented,
            None => self.new_device_cookie(account.player).await,
        };
        let token = new_token();
        let device = StoredDevice {
            id: device_id(),
            label: Some(self.device_label(credentials.device)),
            created_ms: now_ms(),
            last_seen_ms: now_ms(),
            token: TokenHash::of(&token),
            previous: None,
            network: Some(self.network.shown()),
        };
        let added = self.shared.store.add_device(account.player, device, false);
        if let Err(err) = added.await {
            return Err(store_failed(&err, "sign in"));
        }
        self.end_sessions_past_the_cap(account.player).await;
        info!(
            player = account.player.0,
            known = known.is_some(),
            "signed in"
        );
        self.come_back(id, &token, cookie).await
    }

    /// Ends the least recently used sessions of `player`'s account past the most one account
    /// may hold, as `revoke_session` ends one.
    async fn end_sessions_past_the_cap(&self, player: PlayerId) {
        let cap = self.shared.config.accounts.sessions_per_account.max(1);
        let store = &self.shared.store;
        let mut devices = match store.devices(player).await {
            Ok(devices) if devices.len() > cap => devices,
            Ok(_) => return,
            Err(err) => {
                error!(cause = %err, "cannot list an account's sessions");
                return;
            }
        };
        devices.sort_by_key(|device| std::cmp::Reverse((device.last_seen_ms, device.created_ms)));
        for ended in devices.split_off(cap) {
            match store.drop_device(player, ended.id).await {
                Ok(_) => {
                    info!(device = ended.id, "the least recently used session ended");
                    let holds = |token| device_holding(std::slice::from_ref(&ended), token);
                    let live = &self.shared.accounts.live;
                    live.close_ended(player, |token| holds(token).is_some());
                }
                Err(err) => error!(cause = %err, "cannot end a session past the cap"),
            }
        }
    }

    /// The account of this connection's player; refused for a guest or a closed account.
    async fn own_account(&self, session: &Session) -> Result<StoredAccount, Refusal> {
        self.open_account(session, "only an account can do that; register first")
            .await
    }

    /// The open account of `session`'s player; refused with `not_an_account` and `why` for a
    /// guest or a closed account.
    async fn open_account(
        &self,
        session: &Session,
        why: &'static str,
    ) -> Result<StoredAccount, Refusal> {
        match self.shared.store.account_of(session.player).await {
            Ok(Some(account)) if account.closed_ms.is_none() => Ok(account),
            Ok(_) => Err(Refusal::new(ErrorCode::NotAnAccount, why)),
            Err(err) => Err(store_failed(&err, "find an account")),
        }
    }

    /// Refuses a rated game to a guest: ratings are kept between accounts, so that a rating
    /// belongs to a name nobody else can take. Asked of the store, which every node shares.
    pub(super) async fn check_rated_allowed(&self, session: &Session) -> Reply {
        let why = "rated games are between accounts; register first, or play unrated";
        self.open_account(session, why).await.map(drop)
    }

    /// `register`: this guest becomes the account, keeping its id, history and ratings; this
    /// connection's session becomes the account's first device.
    pub(super) async fn register(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        credentials: Credentials,
    ) -> Reply {
        self.check_transport()?;
        validate_username(&credentials.username)
            .map_err(|err| Refusal::new(ErrorCode::BadUsername, err.to_string()))?;
        let store = &self.shared.store;
        match store.account_of(session.player).await {
            Ok(None) => {}
            Ok(Some(_)) => {
                return refuse(
                    ErrorCode::NotAnAccount,
                    "this player has an account already",
                );
            }
            Err(err) => return Err(store_failed(&err, "register")),
        }
        let Some(token) = self.token else {
            return refuse(
                ErrorCode::NotAnAccount,
                "only a player's own connection can register",
            );
        };
        let quotas = &self.shared.accounts.quotas;
        let limits = &self.shared.config.accounts;
        if let Err(wait) = quotas.register(self.network) {
            return refuse(
                ErrorCode::RateLimited,
                format!(
                    "at most {} registrations an hour from one address; retry in {}",
                    limits.registrations_per_hour,
                    in_words(wait)
                ),
            );
        }
        let username = credentials.username;
        if self.shared.accounts.moderation.state().reserved(&username) {
            return refuse(
                ErrorCode::ReservedName,
                format!("the name {username:?} is reserved; choose another"),
            );
        }
        let (key, skeleton) = (username_key(&username), username_skeleton(&username));
        let hold = self.shared.config.accounts.closed_name_hold;
        let hold_ms = u64::try_from(hold.as_millis()).unwrap_or(u64::MAX);
        // A name taken (or one that looks like it) is refused before any hashing.
        match store
            .name_taken(key.clone(), skeleton.clone(), hold_ms)
            .await
        {
            Ok(false) => {}
            Ok(true) => return username_taken(),
            Err(err) => return Err(store_failed(&err, "register")),
        }
        if let Err(wait) = quotas.new_account(self.network) {
            return refuse(
                ErrorCode::RateLimited,
                format!(
                    "at most {} new accounts a day from one address; retry in {}",
                    limits.accounts_per_day,
                    in_words(wait)
                ),
            );
        }
        let label = self.device_label(credentials.device);
        let made = async {
            let phc = self.new_phc(credentials.password, &username).await?;
            let account = NewAccount {
                player: session.player,
                key,
                skeleton,
                username: username.clone(),
                phc,
            };
            match store.create_account(account, hold_ms).await {
                Ok(true) => Ok(()),
                Ok(false) => username_taken(),
                Err(err) => Err(store_failed(&err, "register")),
            }
        };
        if let Err(refusal) = made.await {
            quotas.no_account(self.network);
            return Err(refusal);
        }
        let device = StoredDevice {
            id: device_id(),
            label: Some(label),
            created_ms: now_ms(),
            last_seen_ms: now_ms(),
            token,
            previous: None,
            network: Some(self.network.shown()),
        };
        if let Err(err) = store.add_device(session.player, device, true).await {
            return Err(store_failed(&err, "register"));
        }
        info!(player = session.player.0, "registered");
        // The account's name is its username from now on: what starts from now shows it, and
        // the player's other connections hear of it as of a rename.
        session.set_account(username.clone());
        let renamed = ServerMessage::Renamed {
            name: username.clone(),
        };
        for out in session.outbounds() {
            if out.conn != self.out.conn {
                out.reply(None, renamed.clone());
            }
        }
        let device_cookie = self.new_device_cookie(session.player).await;
        self.out.reply(
            id,
            ServerMessage::Registered {
                player: session.player,
                username,
                device_cookie,
            },
        );
        Ok(())
    }

    /// The id of this connection's device, if it is one of `devices`.
    fn current_device(&self, devices: &[StoredDevice]) -> Option<u64> {
        device_holding(devices, self.token?).map(|device| device.id)
    }

    /// `sessions`: the account's devices, newest first.
    pub(super) async fn sessions(&mut self, session: &Session, id: Option<RequestId>) -> Reply {
        self.own_account(session).await?;
        let devices = match self.shared.store.devices(session.player).await {
            Ok(devices) => devices,
            Err(err) => return Err(store_failed(&err, "list sessions")),
        };
        let current = self.current_device(&devices);
        let sessions = devices
            .into_iter()
            .map(|device| SessionInfo {
                session: device.id,
                current: Some(device.id) == current,
                device: device.label,
                created_ms: device.created_ms,
                last_seen_ms: device.last_seen_ms,
                network: device.network,
            })
            .collect();
        self.out.reply(id, ServerMessage::SessionList { sessions });
        Ok(())
    }

    /// `revoke_session`: one device's tokens stop working.
    pub(super) async fn revoke_session(
        &mut self,
        session: &Session,
        id: Option<RequestId>,
        device: u64,
    ) -> Reply {
        self.own_account(session).await?;
        let store = &self.shared.store;
        let ended = match store.devices(session.player).await {
            Ok(devices) => devices.into_iter().find(|d| d.id == device),
            Err(err) => return Err(store_failed(&err, "revoke a session")),
        };
        match store.drop_device(session.player, device).await {
            Ok(true) => {
                info!(device, "session revoked");
                // Answered first: the session revoked may be this connection's own.
                self.ok(id);
                if let Some(ended) = ended {
                    let holds = |token| device_holding(std::slice::from_ref(&ended), token);
                    let live = &self.shared.accounts.live;
                    live.close_ended(session.player, |token| holds(token).is_some());
                }
                Ok(())
            }
            Ok(false) => refuse(ErrorCode::NoSuchSession, "this account has no such session"),
            Err(err) => Err(store_failed(&err, "revoke a session")),
        }
    }

    /// `logout` from an account: this device's session ends (its tokens stop working, and the
    /// connections that hold them close after this one's `ok`); the account's other sessions, its
    /// games and its seek go on. `None` for a guest, whose `logout` ends the player for good.
    pub(super) async fn logout_device(
        &mut self,
        session: &Session,
        id: Option<RequestId>,
    ) -> Option<Reply> {
        match self.shared.store.account_of(session.player).await {
            Ok(Some(account)) if account.closed_ms.is_none() => {}
            Ok(_) => return None,
            Err(err) => return Some(Err(store_failed(&err, "log out"))),
        }
        let store = &self.shared.store;
        let device = match store.devices(session.player).await {
            Ok(devices) => {
                let current = self.current_device(&devices);
                devices.into_iter().find(|d| Some(d.id) == current)
            }
            Err(err) => return Some(Err(store_failed(&err, "log out"))),
        };
        if let Some(device) = &device
            && let Err(err) = store.drop_device(session.player, device.id).await
        {
            return Some(Err(store_failed(&err, "log out")));
        }
        info!("logged out of one session");
        self.ok(id);
        if let Some(ended) = device {
            let holds = |token| device_holding(std::slice::from_ref(&ended), token);
            let live = &self.shared.accounts.live;
            live.close_ended(session.player, |token| holds(token).is_some());
        }
        self.out.close(Close::LOGGED_OUT);
        Some(Ok(()))
    }

    /// `change_password`: the password is checked, the new one judged and hashed, and every
    /// other device's tokens stop working.
    pub(super) async fn change_password(
        &mut self,
        session: &Session,
        id: Option<RequestId>,
        request: ChangePassword,
    ) -> Reply {
        let ChangePassword {
            password,
            new_password,
        } = request;
        self.check_transport()?;
        let account = self.own_account(session).await?;
        let key = username_key(&account.username);
        let store = &self.shared.store;
        let devices = match store.devices(session.player).await {
            Ok(devices) => devices,
            Err(err) => return Err(store_failed(&err, "change a password")),
        };
        // This connection's session shows a device that signed in before.
        let keep = self.current_device(&devices);
        let device = keep.map(Device::Session);
        self.check_password(&key, Some(&account), password, device)
            .await?;
        let phc = self.new_phc(new_password, &account.username).await?;
        if let Err(err) = store.change_password(session.player, phc, keep).await {
            return Err(store_failed(&err, "change a password"));
        }
        let kept: Vec<StoredDevice> = devices.into_iter().filter(|d| Some(d.id) == keep).collect();
        let current = self.token;
        let live = &self.shared.accounts.live;
        live.close_ended(session.player, |token| {
            Some(token) != current && device_holding(&kept, token).is_none()
        });
        info!("password changed");
        self.ok(id);
        Ok(())
    }

    /// `close_account`: the password is checked, the account closed and every session ended as
    /// `logout` ends them.
    pub(super) async fn close_account(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        request: CloseAccount,
    ) -> Reply {
        let CloseAccount { password } = request;
        self.check_transport()?;
        let account = self.own_account(session).await?;
        let key = username_key(&account.username);
        let device = match self.shared.store.devices(session.player).await {
            Ok(devices) => self.current_device(&devices).map(Device::Session),
            Err(err) => return Err(store_failed(&err, "close an account")),
        };
        self.check_password(&key, Some(&account), password, device)
            .await?;
        if let Err(err) = self.shared.store.close_account(session.player).await {
            return Err(store_failed(&err, "close an account"));
        }
        info!("account closed");
        self.logout(session, id).await
    }
}
