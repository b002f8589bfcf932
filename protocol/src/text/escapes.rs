//! Terminal escape sequences (ECMA-48) in text from other people: where each one ends, so that it
//! is dropped whole rather than leaving its tail behind as text.

use std::iter::Peekable;
use std::str::Chars;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// The 8-bit control sequence introducer, the same as `ESC [`.
const CSI: char = '\u{9b}';
/// The 8-bit string terminator, the same as `ESC \`.
const ST: char = '\u{9c}';

/// The text without its escape sequences:
/// - CSI, `ESC [` or U+009B: parameter bytes (0x30–0x3F), then intermediate bytes (0x20–0x2F),
///   then one final byte (0x40–0x7E); the sequence ends at the first character that does not fit.
/// - Control strings: OSC (`ESC ]`, U+009D), DCS (`ESC P`, U+0090), SOS (`ESC X`, U+0098), PM
///   (`ESC ^`, U+009E) and APC (`ESC _`, U+009F), up to and including BEL or ST (`ESC \` or
///   U+009C); another ESC ends the string and starts a sequence of its own; an unterminated
///   string runs to the end of the text.
/// - Any other ESC: intermediate bytes (0x20–0x2F) and one final byte (0x30–0x7E), as in
///   `ESC ( B`, `ESC 7` or `ESC c`. An ESC followed by anything else is dropped alone.
///
/// Everything else is kept as it is, other control characters included.
pub(super) fn strip_escapes(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => skip_after_esc(&mut chars),
            CSI => skip_csi(&mut chars),
            c if starts_string(c) => skip_string(&mut chars),
            c => kept.push(c),
        }
    }
    kept
}

/// Whether `c` is the 8-bit form of a control string's introducer: DCS, SOS, OSC, PM or APC.
fn starts_string(c: char) -> bool {
    matches!(c, '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}')
}

/// Skips the rest of a sequence whose ESC has just been read.
fn skip_after_esc(chars: &mut Peekable<Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(chars);
        }
        Some(' '..='~') => {
            while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
            chars.next_if(|c| matches!(c, '0'..='~'));
        }
        _ => {}
    }
}

/// Skips a control sequence's parameters, intermediates and final byte.
fn skip_csi(chars: &mut Peekable<Chars<'_>>) {
    while chars.next_if(|c| matches!(c, '0'..='?')).is_some() {}
    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// Skips a control string up to and including its terminator.
fn skip_string(chars: &mut Peekable<Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | ST => return,
            ESC => {
                if chars.next_if_eq(&'\\').is_none() {
                    skip_after_esc(chars);
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::strip_escapes;

    #[test]
    fn a_sequence_cut_short_keeps_what_follows() {
        assert_eq!(strip_escapes("a\u{1b}[31\u{e9}b"), "a\u{e9}b");
        assert_eq!(strip_escapes("a\u{1b}\u{e9}b"), "a\u{e9}b");
        assert_eq!(strip_escapes("a\u{1b}"), "a");
        assert_eq!(strip_escapes("a\u{1b}[12;"), "a");
    }

    #[test]
    fn an_esc_inside_a_string_starts_a_new_sequence() {
        assert_eq!(strip_escapes("a\u{1b}]0;t\u{1b}[1mb"), "ab");
    }

    #[test]
    fn other_control_characters_are_left_for_the_filter() {
        assert_eq!(strip_escapes("a\u{7}\n\u{85}b"), "a\u{7}\n\u{85}b");
    }
}
