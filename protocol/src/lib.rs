//! The noughts wire protocol: every message a client and the server exchange, as serde types.
//!
//! Messages are JSON text frames. Each is an object with a `"type"` tag in snake_case and an
//! optional `"id"` that the reply echoes. [`ClientFrame`] is what a client sends, [`ServerFrame`]
//! what the server sends; [`decode_client`] is the one place that turns a frame's text into a
//! request or into the documented error. `PROTOCOL.md` beside this crate describes it all for
//! people writing clients in other languages, and a test keeps its examples parsing as these types.

use serde::{Deserialize, Serialize};

pub use noughts_engine::{Level, Mark, Variant};

mod decode;
mod text;

pub use decode::{CLIENT_TYPES, DecodeError, decode_client};
pub use text::{ChatError, NameError, clean_chat, normalize_name, sanitize, validate_name};

/// The protocol version this crate speaks; `hello` must carry it.
pub const PROTOCOL_VERSION: u32 = 1;
/// Largest text frame a server accepts, in bytes; a larger one closes the connection with 1009.
pub const MAX_MESSAGE_BYTES: usize = 4096;
/// Longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 24;
/// Longest chat message, in characters.
pub const MAX_CHAT_CHARS: usize = 280;

/// A game's id: unique on a server, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(pub u64);

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A player's public id: stable across reconnects of the same session token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub u64);

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The `"id"` a client may put on a request, echoed on its reply: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(u64),
    Text(String),
}

/// A message from a client, with its optional request id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientFrame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub message: ClientMessage,
}

/// A message from the server; `id` echoes the request it answers, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFrame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub message: ServerMessage,
}

impl ServerFrame {
    /// A frame that answers no request.
    pub fn event(message: ServerMessage) -> ServerFrame {
        ServerFrame { id: None, message }
    }

    /// A frame that answers the request with `id`.
    pub fn reply(id: Option<RequestId>, message: ServerMessage) -> ServerFrame {
        ServerFrame { id, message }
    }

    /// The frame as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server frames always serialise")
    }
}

impl ClientFrame {
    /// A request with no id.
    pub fn new(message: ClientMessage) -> ClientFrame {
        ClientFrame { id: None, message }
    }

    /// The frame as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client frames always serialise")
    }
}

/// A game clock: each side starts with `initial_ms` and gains `increment_ms` after each move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockSpec {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// Which side a player wants against the AI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideChoice {
    X,
    O,
    #[default]
    Random,
}

/// Everything a client can ask of the server. Its `Debug` leaves the session token out, so a
/// logged message cannot give a session away.
#[derive(derive_more::Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// First message on every connection. `token` resumes an earlier session.
    Hello {
        protocol: u32,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[debug("{}", if token.is_some() { "Some(<redacted>)" } else { "None" })]
        token: Option<String>,
    },
    /// Receive the lobby snapshot, then its changes.
    SubscribeLobby,
    /// Stop receiving lobby changes.
    UnsubscribeLobby,
    /// Quick match: be paired with the next player seeking the same variant and clock.
    Seek {
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
        /// Whether the game counts for ratings; only seeks that agree on it are paired.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// Withdraw the current seek.
    CancelSeek,
    /// Open a room that others join by its invite code.
    CreateRoom {
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
        #[serde(default)]
        private: bool,
        /// Whether the game counts for ratings.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// Close a room this player opened that nobody has joined yet.
    CloseRoom { code: String },
    /// Join a room by its invite code; the game starts at once.
    JoinRoom { code: String },
    /// Play against an AI seat.
    PlayAi {
        variant: Variant,
        level: Level,
        #[serde(default)]
        side: SideChoice,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
    },
    /// Start an AI-vs-AI match and watch it.
    StartWar {
        variant: Variant,
        x_level: Level,
        o_level: Level,
    },
    /// Watch a live game: a `game_state` snapshot, then every update. A game from a private room
    /// needs its invite `code` unless the watcher plays in it.
    Watch {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Stop watching a game.
    Unwatch { game: GameId },
    /// Put the mover's mark on `cell` (cell numbers as in the engine: row-major, layer-major).
    Move { game: GameId, cell: usize },
    /// Give up the game.
    Resign { game: GameId },
    /// Offer a rematch with sides swapped, or accept the opponent's offer.
    Rematch { game: GameId },
    /// Say something in a game's chat (players and watchers).
    Chat { game: GameId, text: String },
    /// Application-level ping; the server answers `pong`.
    Ping,
    /// The best-rated players of a variant, best first.
    Leaderboard {
        variant: Variant,
        /// How many places to skip (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u32>,
        /// How many players to list (default 20, at most 100).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// A player's finished games, newest first.
    History {
        /// Whose games (default: your own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        player: Option<PlayerId>,
        /// Only games with a smaller id: the `game` of the last one on the previous page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<GameId>,
        /// How many games (default 20, at most 100).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// The full record of a game: seats, every move with its time, and the result.
    GameRecord { game: GameId },
    /// A player's ratings and results in every variant.
    Profile {
        /// Whose profile (default: your own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        player: Option<PlayerId>,
    },
}

/// Everything the server sends. Its `Debug` leaves the session token out.
#[derive(derive_more::Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to `hello`. Keep `token` to resume this identity later.
    Welcome {
        protocol: u32,
        player: PlayerId,
        name: String,
        #[debug("<redacted>")]
        token: String,
        /// True when `hello` carried a token that resumed an earlier session.
        resumed: bool,
        /// The player's rating in each variant.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        ratings: Vec<Rating>,
    },
    /// A request was refused. `code` is stable and documented; `message` is for people.
    Error { code: ErrorCode, message: String },
    /// A request that has no other answer succeeded (sent only when the request had an `id`).
    Ok,
    /// Answer to `ping`.
    Pong,
    /// The whole lobby, sent on `subscribe_lobby` and on resuming a subscribed session.
    Lobby {
        rooms: Vec<RoomInfo>,
        games: Vec<GameInfo>,
    },
    /// A game appeared in the lobby or changed (moves, watchers, presence).
    LobbyGame { game: GameInfo },
    /// A game left the lobby (it ended).
    LobbyGameRemoved { game: GameId },
    /// A public room opened.
    LobbyRoom { room: RoomInfo },
    /// A public room closed or was joined.
    LobbyRoomRemoved { code: String },
    /// The seek was registered; a `game_state` follows when an opponent is found.
    Seeking {
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
    },
    /// The room was opened; give `code` to the opponent.
    RoomCreated {
        code: String,
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
        private: bool,
    },
    /// A full snapshot of one game: on start, on `watch`, and on resume.
    GameState(Box<GameState>),
    /// A move was made.
    Moved {
        game: GameId,
        seq: u64,
        mark: Mark,
        cell: usize,
        board: String,
        /// Whose turn it is now; absent when the move ended the game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_move: Option<Mark>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// The game ended.
    GameOver {
        game: GameId,
        seq: u64,
        board: String,
        result: GameResult,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// A player's connection dropped or came back. While away, `grace_ms` says how long they have
    /// left before they lose by abandonment.
    Presence {
        game: GameId,
        seq: u64,
        mark: Mark,
        connected: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grace_ms: Option<u64>,
    },
    /// The number of people watching changed.
    Watchers { game: GameId, seq: u64, count: u32 },
    /// A chat line in a game.
    Chat {
        game: GameId,
        seq: u64,
        #[serde(flatten)]
        line: ChatLine,
    },
    /// A player offered a rematch; the other accepts by sending `rematch` too.
    RematchOffered { game: GameId, seq: u64, by: Mark },
    /// The server is going away; the connection closes with 1001 next.
    Shutdown { message: String },
    /// The answer to `leaderboard`.
    Leaderboard {
        variant: Variant,
        /// The places skipped: the first entry's `rank` is `offset + 1`.
        offset: u32,
        players: Vec<LeaderboardEntry>,
    },
    /// The answer to `history`.
    History {
        player: PlayerId,
        /// Newest first.
        games: Vec<GameSummary>,
        /// Whether older games follow (ask again with `before` set to the last `game`).
        more: bool,
    },
    /// The answer to `game_record`.
    GameRecord(Box<GameRecord>),
    /// The answer to `profile`.
    Profile(Box<Profile>),
}

/// A full game snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: SeatInfo,
    pub o: SeatInfo,
    /// The mark of the player this snapshot is sent to, if they play in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<Mark>,
    /// The latest `seq` of this game: the next update carries a larger one.
    pub seq: u64,
    pub board: String,
    /// Cells in the order they were played.
    pub moves: Vec<usize>,
    /// Whose turn it is; absent once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_move: Option<Mark>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// Present once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    pub watchers: u32,
    /// The most recent chat lines, oldest first.
    #[serde(default)]
    pub chat: Vec<ChatLine>,
    /// The game this one is a rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<GameId>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub name: String,
    /// The player's id; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The AI level; absent for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// False while a human player's connection is down.
    pub connected: bool,
    /// A person's rating in the game's variant; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
}

/// What kind of players a game has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Two people.
    Human,
    /// A person against an AI seat.
    Ai,
    /// Two AI seats: the server's war games and matches players start.
    War,
}

/// The clocks at the moment a message was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub x_ms: u64,
    pub o_ms: u64,
    /// The side whose clock is running, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Mark>,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Absent for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Mark>,
    pub reason: EndReason,
    /// The winning line's cells (every completed line's, if one move made several); empty unless
    /// the reason is `line`.
    #[serde(default)]
    pub cells: Vec<usize>,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A side completed a line.
    Line,
    /// The board filled with no line.
    Draw,
    /// A player resigned.
    Resign,
    /// A player's clock ran out.
    Timeout,
    /// A player stayed disconnected past the grace period.
    Abandon,
    /// The server ended the game (it was shutting down).
    Aborted,
}

/// One line of a game's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The speaker's display name.
    pub from: String,
    /// The speaker's mark, if they play in the game; absent for watchers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
    pub text: String,
}

/// A game as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInfo {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: SeatInfo,
    pub o: SeatInfo,
    /// Moves played so far.
    pub moves: u32,
    pub watchers: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// A public room waiting for an opponent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomInfo {
    pub code: String,
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// The name of the player who opened it.
    pub host: String,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// A player's Glicko-2 rating in one variant, rounded to whole points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rating {
    pub variant: Variant,
    /// The rating; everyone starts at 1500.
    pub rating: u32,
    /// The rating deviation: how uncertain the rating is (350 for a newcomer, shrinking with play).
    pub deviation: u32,
    /// Rated games played in this variant.
    pub games: u32,
}

/// One line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// 1 for the best-rated player.
    pub rank: u32,
    pub player: PlayerId,
    pub name: String,
    pub rating: u32,
    pub deviation: u32,
    /// Rated games in this variant, and how they went.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// A seat in a stored game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordSeat {
    /// The player's name, or `AI (level)`.
    pub name: String,
    /// The player's id; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The AI level; absent for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// In a finished rated game, the player's rating going into it (what its result was counted
    /// against).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// In a finished rated game, how much the game changed that rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<i32>,
}

/// A game as a player's history lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: RecordSeat,
    pub o: RecordSeat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When the game started and ended, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    pub ended_ms: u64,
    /// Moves played.
    pub moves: u32,
    pub result: GameResult,
}

/// Everything kept about one game: enough to replay it move by move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: RecordSeat,
    pub o: RecordSeat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When the game started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// When it ended; absent while it is being played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
    /// The final (or current) board.
    pub board: String,
    /// How it ended; absent while it is being played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    /// The game this one is a rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<GameId>,
}

/// One move of a stored game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub mark: Mark,
    pub cell: usize,
    /// When it was played, in milliseconds since the game started.
    pub at_ms: u64,
    /// In a timed game, the mover's time left after the move (increment included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

/// A player's public profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub player: PlayerId,
    pub name: String,
    /// When the player first said hello and was last seen, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    pub last_seen_ms: u64,
    /// One entry per variant, in the order classic, four, cube, qubic.
    pub variants: Vec<VariantStats>,
}

/// A player's rating and results in one variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantStats {
    pub variant: Variant,
    pub rating: u32,
    pub deviation: u32,
    /// Rated games played.
    pub rated_games: u32,
    /// Finished games of every kind (rated, casual, against the AI), and how they went.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The stable error codes. PROTOCOL.md documents when each is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not valid JSON, or not a JSON object.
    BadJson,
    /// The `type` is missing or not one the server knows.
    UnknownType,
    /// The `type` is known but a field is missing or has the wrong type.
    BadRequest,
    /// `hello` carried a protocol version the server does not speak.
    UnsupportedVersion,
    /// A request other than `hello` came before `hello`.
    HelloFirst,
    /// `hello` came twice on one connection.
    AlreadyWelcomed,
    /// The name is empty, too long, or holds control characters.
    BadName,
    /// The token in `hello` is not one this server issued (or it has expired).
    UnknownToken,
    /// No live game has that id.
    NoSuchGame,
    /// Only the game's players may do that (watchers and strangers may not).
    NotAPlayer,
    /// It is the other side's move.
    NotYourTurn,
    /// The cell is off the board or taken.
    IllegalMove,
    /// The game has already ended.
    GameOver,
    /// The game is still being played (a rematch before the end).
    GameNotOver,
    /// This player already has a seek open.
    AlreadySeeking,
    /// There is no seek to cancel.
    NotSeeking,
    /// No open room has that code.
    NoSuchRoom,
    /// A player cannot join their own room.
    OwnRoom,
    /// A clock setting is out of range.
    BadClock,
    /// A chat message is empty or too long.
    BadChat,
    /// The client sends faster than the rate limit allows.
    RateLimited,
    /// The server holds as many connections (or games) as it is configured for.
    ServerFull,
    /// The server is shutting down and takes no new games.
    ShuttingDown,
    /// Something went wrong inside the server; the request had no effect.
    Internal,
    /// The player already has as many open rooms, or live games it started, as one player may.
    LimitReached,
    /// No player has that id.
    NoSuchPlayer,
    /// The client's address holds as many connections as one address may (sent just before
    /// close 1013).
    TooManyConnections,
}

impl ErrorCode {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        ERROR_CODES
            .iter()
            .find(|(code, _)| *code == self)
            .map_or("internal", |(_, name)| name)
    }
}

/// Every error code with its wire name, for documentation tests and clients.
pub const ERROR_CODES: &[(ErrorCode, &str)] = &[
    (ErrorCode::BadJson, "bad_json"),
    (ErrorCode::UnknownType, "unknown_type"),
    (ErrorCode::BadRequest, "bad_request"),
    (ErrorCode::UnsupportedVersion, "unsupported_version"),
    (ErrorCode::HelloFirst, "hello_first"),
    (ErrorCode::AlreadyWelcomed, "already_welcomed"),
    (ErrorCode::BadName, "bad_name"),
    (ErrorCode::UnknownToken, "unknown_token"),
    (ErrorCode::NoSuchGame, "no_such_game"),
    (ErrorCode::NotAPlayer, "not_a_player"),
    (ErrorCode::NotYourTurn, "not_your_turn"),
    (ErrorCode::IllegalMove, "illegal_move"),
    (ErrorCode::GameOver, "game_over"),
    (ErrorCode::GameNotOver, "game_not_over"),
    (ErrorCode::AlreadySeeking, "already_seeking"),
    (ErrorCode::NotSeeking, "not_seeking"),
    (ErrorCode::NoSuchRoom, "no_such_room"),
    (ErrorCode::OwnRoom, "own_room"),
    (ErrorCode::BadClock, "bad_clock"),
    (ErrorCode::BadChat, "bad_chat"),
    (ErrorCode::RateLimited, "rate_limited"),
    (ErrorCode::ServerFull, "server_full"),
    (ErrorCode::ShuttingDown, "shutting_down"),
    (ErrorCode::Internal, "internal"),
    (ErrorCode::LimitReached, "limit_reached"),
    (ErrorCode::NoSuchPlayer, "no_such_player"),
    (ErrorCode::TooManyConnections, "too_many_connections"),
];

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// WebSocket close codes the server uses.
pub mod close {
    /// The session was resumed on another connection; this one gives way.
    pub const REPLACED: u16 = 1000;
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
    /// A frame larger than [`crate::MAX_MESSAGE_BYTES`].
    pub const MESSAGE_TOO_BIG: u16 = 1009;
    /// The server is at its connection limit, or the client's address at its own.
    pub const TRY_AGAIN_LATER: u16 = 1013;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_a_token() {
        let token = "0123456789abcdef0123456789abcdef";
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "ada".to_owned(),
            token: Some(token.to_owned()),
        };
        let welcome = ServerMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            player: PlayerId(7),
            name: "ada".to_owned(),
            token: token.to_owned(),
            resumed: true,
            ratings: Vec::new(),
        };
        let frame = ClientFrame {
            id: Some(RequestId::Number(1)),
            message: hello.clone(),
        };
        for shown in [
            format!("{hello:?}"),
            format!("{welcome:?}"),
            format!("{frame:?}"),
            format!("{hello:#?}"),
        ] {
            assert!(!shown.contains(token), "{shown}");
            assert!(shown.contains("ada"), "the rest is still shown: {shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
        }
        let fresh = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "bo".to_owned(),
            token: None,
        };
        assert!(format!("{fresh:?}").contains("token: None"));
    }
}
