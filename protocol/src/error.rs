//! The stable error codes and the WebSocket close codes. Each error code is written once, in the
//! table below, which gives the enum, its wire name and the list PROTOCOL.md is checked against.

use serde::{Deserialize, Serialize};

/// Declares [`ErrorCode`], its wire names and [`ERROR_CODES`] from one table.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $code:ident = $wire:literal,)*) => {
        /// The stable error codes. PROTOCOL.md documents when each is sent.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $wire)] $code,)*
        }

        impl ErrorCode {
            /// The code as it appears on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => $wire,)*
                }
            }
        }

        /// Every error code with its wire name, for documentation tests and clients.
        pub const ERROR_CODES: &[(ErrorCode, &str)] = &[$((ErrorCode::$code, $wire),)*];
    };
}

error_codes! {
    /// The frame is not valid JSON, or not a JSON object.
    BadJson = "bad_json",
    /// The `type` is missing or not one the server knows.
    UnknownType = "unknown_type",
    /// The `type` is known but a field is missing or has the wrong type.
    BadRequest = "bad_request",
    /// `hello` carried a protocol version the server does not speak.
    UnsupportedVersion = "unsupported_version",
    /// A request other than `hello` came before `hello`.
    HelloFirst = "hello_first",
    /// `hello` came twice on one connection.
    AlreadyWelcomed = "already_welcomed",
    /// The name is empty, too long, or holds control characters.
    BadName = "bad_name",
    /// The token in `hello` is not one this server issued (or it has expired).
    UnknownToken = "unknown_token",
    /// No live game has that id.
    NoSuchGame = "no_such_game",
    /// Only the game's players may do that (watchers and strangers may not).
    NotAPlayer = "not_a_player",
    /// It is the other side's move.
    NotYourTurn = "not_your_turn",
    /// The cell is off the board or taken.
    IllegalMove = "illegal_move",
    /// The game has already ended.
    GameOver = "game_over",
    /// The game is still being played (a rematch before the end).
    GameNotOver = "game_not_over",
    /// This player already has a seek open.
    AlreadySeeking = "already_seeking",
    /// There is no seek to cancel.
    NotSeeking = "not_seeking",
    /// No open room has that code.
    NoSuchRoom = "no_such_room",
    /// A player cannot join their own room.
    OwnRoom = "own_room",
    /// `accept_seek` named a seek that is not waiting (never was, or was paired, accepted or
    /// withdrawn meanwhile).
    NoSuchSeek = "no_such_seek",
    /// An offer of the same kind by the same player is already pending.
    AlreadyOffered = "already_offered",
    /// `decline` with no offer from the opponent pending, or `cancel_offer` with none of one's
    /// own.
    NoOffer = "no_offer",
    /// `takeback` in a rated game, or with no move of the player's own to take back.
    NoTakeback = "no_takeback",
    /// `abort` after both sides have moved.
    TooLate = "too_late",
    /// `offer_draw` before both sides have moved (`abort` ends such a game instead); a `claim`
    /// before the opponent has been away long enough.
    TooEarly = "too_early",
    /// A `claim` while the opponent is connected (or is an AI seat, which never leaves).
    NotAway = "not_away",
    /// A player cannot accept their own seek.
    OwnSeek = "own_seek",
    /// A clock setting is out of range.
    BadClock = "bad_clock",
    /// A chat message is empty or too long.
    BadChat = "bad_chat",
    /// The client sends faster than the rate limit allows.
    RateLimited = "rate_limited",
    /// The server holds as many connections (or games) as it is configured for.
    ServerFull = "server_full",
    /// The server is shutting down and takes no new games.
    ShuttingDown = "shutting_down",
    /// Something went wrong inside the server; the request had no effect.
    Internal = "internal",
    /// The game is paused for a moment: the site is reconnecting a part it needs to keep it
    /// (its coordination store or its database). Nothing was played; the game's `game_state`
    /// comes when it resumes.
    GamePaused = "game_paused",
    /// The player already has as many open rooms, or live games it started, as one player may.
    LimitReached = "limit_reached",
    /// No player has that id.
    NoSuchPlayer = "no_such_player",
    /// The server runs no engines' league on that variant (it plays no war games on it).
    NoLeague = "no_league",
    /// The client's address holds as many connections as one address may (sent just before
    /// close 1013).
    TooManyConnections = "too_many_connections",
    /// The player, or the client's address, is banned by the server's operator (sent in answer
    /// to `hello`, or to a live connection just before close 1008).
    Banned = "banned",
    /// The name in `hello` is reserved (the AI's names, the server's own words, and names the
    /// operator reserved).
    ReservedName = "reserved_name",
    /// One of the two players blocks the other: they are not paired, and may not join each
    /// other's rooms or accept each other's seeks.
    Blocked = "blocked",
    /// The server's operator muted this player's chat for a time.
    Muted = "muted",
    /// `mute`, `block` or `report` named the player themselves.
    OwnPlayer = "own_player",
    /// A `report` whose reason is empty or longer than [`crate::MAX_REPORT_CHARS`] after
    /// cleaning.
    BadReport = "bad_report",
    /// `hello` with a username and password that do not match an open account: the same answer
    /// whether the username is unknown or the password wrong.
    BadCredentials = "bad_credentials",
    /// `register` with a username another account holds (compared ignoring case).
    UsernameTaken = "username_taken",
    /// A username that breaks the rules (2 to 20 ASCII letters, digits, `_` and `-`).
    BadUsername = "bad_username",
    /// A password shorter than 8 characters, longer than 128, or among the commonest passwords.
    WeakPassword = "weak_password",
    /// Too many wrong passwords for this account or from this address; the message ends with
    /// `retry after <ms> ms`, when to try again.
    TooManyAttempts = "too_many_attempts",
    /// A password sent over a connection that is not encrypted (plain `ws://` from another
    /// machine, with no TLS proxy declared in front of the server).
    InsecureTransport = "insecure_transport",
    /// An account request from a guest (`sessions`, `change_password`, `close_account`,
    /// `become_bot`),
    /// `register` from a player who has an account already, or a rated game asked for by a guest
    /// (a rated `seek` or `create_room`, `accept_seek` of a rated seek, `join_room` of a rated
    /// room): rated games are between accounts.
    NotAnAccount = "not_an_account",
    /// `revoke_session` named a session this account does not have.
    NoSuchSession = "no_such_session",
    /// `rename` from an account: an account's name is its username, everywhere.
    AccountName = "account_name",
    /// `become_bot` from an account that has played rated games: a bot starts with a clean
    /// record (as a person's ratings must not pass to a program).
    HasRatedGames = "has_rated_games",
    /// `become_bot` from an account that is a bot already.
    AlreadyBot = "already_bot",
    /// A bot's `accept_seek` of a seek that does not accept bots (its seeker did not choose to
    /// play them), or a bot's `join_arena` of an arena for people.
    NoBots = "no_bots",
    /// No arena has that id (or it is private and the invite code is missing or wrong).
    NoSuchArena = "no_such_arena",
    /// `join_arena` of an arena whose time is up.
    ArenaOver = "arena_over",
    /// `create_arena` with a name, start or length out of range (see Limits).
    BadArena = "bad_arena",
    /// `enter_league` or `leave_league` from a player who is not a bot account: the league's
    /// entrants are the AI levels and bots.
    NotABot = "not_a_bot",
    /// `join_arena` of an arena for bots (`bots_only`) from a person's account.
    BotsOnly = "bots_only",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// WebSocket close codes the server uses.
pub mod close {
    /// The player logged out (from this connection or another of the same session).
    pub const LOGGED_OUT: u16 = 1000;
    /// The server is shutting down.
    pub const GOING_AWAY: u16 = 1001;
    /// A frame that breaks the WebSocket protocol.
    pub const PROTOCOL_ERROR: u16 = 1002;
    /// A binary frame.
    pub const UNSUPPORTED_DATA: u16 = 1003;
    /// A text frame that is not valid UTF-8.
    pub const INVALID_PAYLOAD: u16 = 1007;
    /// Persistent abuse of the rate limit, or no pong for too long.
    pub const POLICY_VIOLATION: u16 = 1008;
    /// A frame larger than [`crate::limits::MAX_MESSAGE_BYTES`].
    pub const MESSAGE_TOO_BIG: u16 = 1009;
    /// The server is at its connection limit, or the client's address at its own.
    pub const TRY_AGAIN_LATER: u16 = 1013;
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_the_serde_names() {
        for (code, wire) in ERROR_CODES {
            assert_eq!(serde_json::to_string(code).unwrap(), format!("\"{wire}\""));
            assert_eq!(code.as_str(), *wire);
        }
    }
}
