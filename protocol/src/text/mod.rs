//! Text that comes from other people: names and chat. One place decides what may be shown.
//!
//! Both kinds of text lose the same characters (see [`sanitize`]): escape sequences whole, then
//! every character of the general categories Cc, Cf, Zl, Zp, Co, Cs and Cn and the blank fillers
//! (U+115F, U+1160, U+3164, U+FFA0, U+2800, U+17B4, U+17B5). A name holding any of them is
//! refused; chat has them removed. Both are normalised to NFC, and their lengths are counted in
//! characters (Unicode scalar values) after normalisation.

mod categories;
mod escapes;

use unicode_normalization::UnicodeNormalization;

use self::categories::{becomes_space, is_refused, is_visible};
use self::escapes::strip_escapes;
use crate::limits::{MAX_CHAT_CHARS, MAX_NAME_CHARS};

/// Why a display name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// Nothing visible is left after trimming: no letter, number, punctuation or symbol.
    Empty,
    /// More than [`MAX_NAME_CHARS`] characters after trimming and normalising to NFC.
    TooLong,
    /// A character that may not be shown: control, format, line or paragraph separator,
    /// private-use, unassigned, or a blank filler.
    ControlCharacter,
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameError::Empty => write!(f, "a name needs at least one visible character"),
            NameError::TooLong => write!(f, "a name has at most {MAX_NAME_CHARS} characters"),
            NameError::ControlCharacter => write!(
                f,
                "a name may not hold control, format, private-use, unassigned or blank filler \
                 characters"
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// Why a chat line was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatError {
    /// Nothing visible is left after cleaning: no letter, number, punctuation or symbol.
    Empty,
    /// More than [`MAX_CHAT_CHARS`] characters after cleaning.
    TooLong,
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatError::Empty => write!(f, "a chat line needs some visible text"),
            ChatError::TooLong => {
                write!(f, "a chat line has at most {MAX_CHAT_CHARS} characters")
            }
        }
    }
}

impl std::error::Error for ChatError {}

/// Checks a display name and returns it with surrounding whitespace (Unicode `White_Space`)
/// trimmed. A name is refused if it holds any character [`sanitize`] would remove or turn into a
/// space (so no escape sequence, tab or line break), if what is left after trimming has no
/// letter, number, punctuation or symbol, or if that is longer than [`MAX_NAME_CHARS`]
/// characters in NFC. The name is returned as given; [`normalize_name`] returns it in NFC.
pub fn validate_name(name: &str) -> Result<&str, NameError> {
    if name.chars().any(is_refused) {
        return Err(NameError::ControlCharacter);
    }
    let name = name.trim();
    if !name.chars().any(is_visible) {
        return Err(NameError::Empty);
    }
    if name.nfc().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong);
    }
    Ok(name)
}

/// The name to store and show: checked as by [`validate_name`], trimmed and normalised to NFC, so
/// that names that differ only by normalisation (a precomposed `é` or `e` and a combining acute)
/// are the same name.
pub fn normalize_name(name: &str) -> Result<String, NameError> {
    validate_name(name).map(|name| name.nfc().collect())
}

/// The text as it may be shown, in NFC: escape sequences removed whole (CSI, OSC and the other
/// control strings, two-byte and `ESC (`-style sequences, in their ESC and 8-bit C1 forms); tab
/// and every line break (LF, VT, FF, CR, NEL, U+2028, U+2029) turned into a space, CR LF into one
/// space; every other character of categories Cc, Cf, Zl, Zp, Co, Cs and Cn and every blank
/// filler removed. Nothing is trimmed. What is left cannot move a terminal's cursor, change its
/// colours or reorder the text around it.
pub fn sanitize(text: &str) -> String {
    let mut after_cr = false;
    strip_escapes(text)
        .chars()
        .filter_map(|c| {
            let crlf = after_cr && c == '\n';
            after_cr = c == '\r';
            if crlf {
                None
            } else if becomes_space(c) {
                Some(' ')
            } else if is_refused(c) {
                None
            } else {
                Some(c)
            }
        })
        .nfc()
        .collect()
}

/// A chat line as it is relayed: [`sanitize`]d, then trimmed of surrounding whitespace. Refused
/// if nothing visible (a letter, number, punctuation or symbol) is left, or if it is longer than
/// [`MAX_CHAT_CHARS`] characters.
pub fn clean_chat(text: &str) -> Result<String, ChatError> {
    let cleaned = sanitize(text);
    let line = cleaned.trim();
    if !line.chars().any(is_visible) {
        return Err(ChatError::Empty);
    }
    if line.chars().count() > MAX_CHAT_CHARS {
        return Err(ChatError::TooLong);
    }
    Ok(line.to_owned())
}
