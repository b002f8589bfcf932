//! The protocol's version and the sizes it limits.

/// The protocol version this crate speaks; `hello` must carry it.
pub const PROTOCOL_VERSION: u32 = 2;
/// The most seeks a `lobby` snapshot lists (the newest; `seeks_total` counts them all).
pub const LOBBY_SEEKS: usize = 40;
/// The most public rooms a `lobby` snapshot lists (the newest; `rooms_total` counts them all).
pub const LOBBY_ROOMS: usize = 40;
/// The most featured games the lobby shows beside the war games.
pub const LOBBY_FEATURED: usize = 8;
/// The most games one `list_games` page holds.
pub const LIST_GAMES_MAX: u32 = 100;
/// How many games a `list_games` page holds when the request does not say.
pub const LIST_GAMES_DEFAULT: u32 = 50;
/// Largest text frame a server accepts, in bytes; a larger one closes the connection with 1009.
pub const MAX_MESSAGE_BYTES: usize = 4096;
/// The WebSocket read buffer of a server's connection, in bytes, and the most one read takes:
/// the buffer is filled (so touched) whole and kept for the connection's life, while clients'
/// messages are small. The load generator's echo baseline, standing in for the server, uses the
/// same.
pub const SOCKET_READ_BUFFER: usize = 1024;
/// The WebSocket write buffer of a server's connection, in bytes: frames gather there until it
/// holds this much or the connection flushes.
pub const SOCKET_WRITE_BUFFER: usize = 16 * 1024;
/// Longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 24;
/// Longest chat message, in characters.
pub const MAX_CHAT_CHARS: usize = 280;
/// Longest reason a `report` may give, in characters.
pub const MAX_REPORT_CHARS: usize = 500;
/// The most players one player may mute, and separately block.
pub const MAX_MODERATED_PLAYERS: usize = 1000;
/// The most `report`s one player may send in an hour.
pub const REPORTS_PER_HOUR: u32 = 10;
/// The leaders an `arena` frame lists.
pub const ARENA_TOP: usize = 20;
/// The most lines one `arena_page` holds.
pub const ARENA_PAGE: usize = 50;
/// The most arenas one `list_arenas` page holds.
pub const LIST_ARENAS_MAX: u32 = 100;
/// How many arenas a `list_arenas` page holds when the request does not say.
pub const LIST_ARENAS_DEFAULT: u32 = 50;
/// The most arenas one account may have created that have not finished.
pub const ARENAS_PER_ACCOUNT: usize = 3;
/// Longest arena, in seconds (a day).
pub const ARENA_MAX_SECS: u32 = 86_400;
/// Furthest ahead an arena may start, in milliseconds (a week).
pub const ARENA_AHEAD_MS: u64 = 7 * 86_400_000;
/// Longest arena name, in characters.
pub const MAX_ARENA_NAME_CHARS: usize = 40;
/// A draw of fewer moves than this (in all, both sides') scores nothing in an arena.
pub const ARENA_QUICK_DRAW_MOVES: u32 = 8;
/// The most arenas the lobby lists.
pub const LOBBY_ARENAS: usize = 10;
