//! The noughts wire protocol: every message a client and the server exchange, as serde types.
//!
//! Messages are JSON text frames. Each is an object with a `"type"` tag in snake_case and an
//! optional `"id"` that the reply echoes. [`ClientFrame`] is what a client sends, [`ServerFrame`]
//! what the server sends; [`decode_client`] is the one place that turns a frame's text into a
//! request or into the documented error. `PROTOCOL.md` beside this crate describes it all for
//! people writing clients in other languages, and a test keeps its examples parsing as these types.

mod account;
mod arena;
mod decode;
mod error;
mod frame;
mod game;
mod ids;
mod league;
mod limits;
mod lobby;
mod message;
mod moderation;
mod records;
mod text;

pub use account::{
    CLOSED_MARK, ChangePassword, CloseAccount, Credentials, DEVICE_MAX_CHARS, PASSWORD_MAX_CHARS,
    PASSWORD_MIN_CHARS, SessionInfo, USERNAME_MAX_CHARS, USERNAME_MIN_CHARS, UsernameError,
    closed_name, looks_closed, skeleton, username_key, username_skeleton, validate_username,
};
pub use arena::{
    ArenaId, ArenaInfo, ArenaLine, ArenaStatus, ArenaTotals, ArenaView, CreateArena, ListArenas,
    Podium,
};
pub use decode::{CLIENT_TYPES, DecodeError, decode_client};
pub use error::{ERROR_CODES, ErrorCode, close};
pub use frame::{ClientFrame, ServerFrame};
pub use game::{
    Away, ChatLine, ClaimOutcome, ClockSpec, Clocks, EndReason, GameKind, GameResult, GameState,
    OfferKind, PendingOffer, PlayAi, RatingChange, RatingChanges, SeatInfo, SideChoice, Speed,
    StartWar, Watch,
};
pub use ids::{GameId, PlayerId, RequestId, SeekId};
pub use league::{Entrant, League, LeaguePairing, LeagueStanding, LeagueTable};
pub use limits::{
    ARENA_AHEAD_MS, ARENA_MAX_SECS, ARENA_PAGE, ARENA_QUICK_DRAW_MOVES, ARENA_TOP,
    ARENAS_PER_ACCOUNT, LIST_ARENAS_DEFAULT, LIST_ARENAS_MAX, LIST_GAMES_DEFAULT, LIST_GAMES_MAX,
    LOBBY_ARENAS, LOBBY_FEATURED, LOBBY_ROOMS, LOBBY_SEEKS, MAX_ARENA_NAME_CHARS, MAX_CHAT_CHARS,
    MAX_MESSAGE_BYTES, MAX_MODERATED_PLAYERS, MAX_NAME_CHARS, MAX_REPORT_CHARS, PROTOCOL_VERSION,
    REPORTS_PER_HOUR, SOCKET_READ_BUFFER, SOCKET_WRITE_BUFFER,
};
pub use lobby::{CreateRoom, GameInfo, ListGames, LobbyUpdate, RoomInfo, Seek, SeekInfo, Totals};
pub use message::{ClientMessage, ServerMessage};
pub use moderation::{ModeratedPlayer, Report, ReportCategory};
pub use noughts_engine::{Level, Mark, Value, Variant};
pub use records::{
    GameRecord, GameSummary, History, Leaderboard, LeaderboardEntry, MoveAnalysis, MoveRecord,
    NotJudged, Profile, Rating, RecordSeat, VariantStats, Verdict, Worth,
};
pub use text::{ChatError, NameError, clean_chat, normalize_name, sanitize, validate_name};
