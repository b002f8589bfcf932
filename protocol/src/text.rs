//! Text that comes from other people: names and chat. One place decides what may be shown.

use crate::limits::MAX_NAME_CHARS;

/// Why a display name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    Empty,
    TooLong,
    ControlCharacter,
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameError::Empty => write!(f, "a name needs at least one visible character"),
            NameError::TooLong => write!(f, "a name has at most {MAX_NAME_CHARS} characters"),
            NameError::ControlCharacter => {
                write!(f, "a name may not hold control or escape characters")
            }
        }
    }
}

impl std::error::Error for NameError {}

/// Checks a display name: 1 to 24 characters, none of them control characters, not all blank.
/// Returns the name with surrounding whitespace trimmed.
pub fn validate_name(name: &str) -> Result<&str, NameError> {
    if name.chars().any(is_unprintable) {
        return Err(NameError::ControlCharacter);
    }
    let name = name.trim();
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong);
    }
    Ok(name)
}

/// The text with every control character (C0, DEL, C1, and so every escape sequence's
/// introducer) and bidirectional override removed, tabs and newlines turned into spaces. What is
/// left cannot move a terminal's cursor or change its colours.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' => Some(' '),
            c if is_unprintable(c) => None,
            c => Some(c),
        })
        .collect()
}

fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(validate_name("  ada "), Ok("ada"));
        assert_eq!(validate_name("   "), Err(NameError::Empty));
        assert_eq!(validate_name(&"x".repeat(25)), Err(NameError::TooLong));
        assert_eq!(validate_name("évelyne ♛"), Ok("évelyne ♛"));
        assert_eq!(
            validate_name("\u{1b}[31mred"),
            Err(NameError::ControlCharacter)
        );
    }

    #[test]
    fn sanitize_strips_escapes() {
        assert_eq!(sanitize("hi\u{1b}[2J there\u{7}"), "hi[2J there");
        assert_eq!(sanitize("a\u{9b}31mb"), "a31mb");
        assert_eq!(sanitize("line\nbreak"), "line break");
        assert_eq!(sanitize("\u{202e}evil"), "evil");
    }
}
