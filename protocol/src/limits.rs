//! The protocol's version and the sizes it limits.

/// The protocol version this crate speaks; `hello` must carry it.
pub const PROTOCOL_VERSION: u32 = 1;
/// Largest text frame a server accepts, in bytes; a larger one closes the connection with 1009.
pub const MAX_MESSAGE_BYTES: usize = 4096;
/// Longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 24;
/// Longest chat message, in characters.
pub const MAX_CHAT_CHARS: usize = 280;
