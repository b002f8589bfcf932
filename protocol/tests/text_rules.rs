//! What text from other people may hold: names and chat against every Unicode code point (by the
//! general category tables), escape sequences of every form, NFC, and blank text.

use noughts_protocol::{
    ChatError, MAX_CHAT_CHARS, MAX_NAME_CHARS, NameError, clean_chat, normalize_name, sanitize,
    validate_name,
};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Characters outside the refused categories that render as nothing, written out by hand.
const BLANK_FILLERS: [char; 7] = [
    '\u{115f}', '\u{1160}', '\u{3164}', '\u{ffa0}', '\u{2800}', '\u{17b4}', '\u{17b5}',
];

/// Characters that chat shows as a space: tab and the line breaks.
const SPACES_IN_CHAT: [char; 8] = [
    '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}', '\u{2028}', '\u{2029}',
];

/// The introducers of sequences that swallow a following `b`: ESC (`ESC b` is a two-byte
/// sequence), the 8-bit CSI (`b` is its final byte) and the 8-bit control strings (unterminated).
const SEQUENCE_STARTS: [char; 7] = [
    '\u{1b}', '\u{90}', '\u{98}', '\u{9b}', '\u{9d}', '\u{9e}', '\u{9f}',
];

/// Whether the general category tables put `c` in a category that may never be shown.
fn in_refused_category(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
    )
}

/// Every Unicode scalar value (every code point but the surrogates, which a `str` cannot hold).
fn every_char() -> impl Iterator<Item = char> {
    (0..=0x10_ffff).filter_map(char::from_u32)
}

/// Code points the issue named; each must fall in a refused category.
const NAMED_IN_THE_ISSUE: [char; 14] = [
    '\u{61c}',
    '\u{2060}',
    '\u{feff}',
    '\u{ad}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{2028}',
    '\u{2029}',
    '\u{fff9}',
    '\u{fffb}',
    '\u{fdd0}',
    '\u{fffe}',
    '\u{10ffff}',
    '\u{9b}',
];

#[test]
fn every_character_of_a_refused_category_makes_a_name_refused() {
    for c in NAMED_IN_THE_ISSUE {
        assert!(in_refused_category(c), "U+{:04X}", u32::from(c));
    }
    let mut refused = 0;
    let mut name = String::new();
    for c in every_char() {
        name.clear();
        name.extend(['a', 'b', c, 'c', 'd']);
        let code = u32::from(c);
        if in_refused_category(c) || BLANK_FILLERS.contains(&c) {
            refused += 1;
            assert_eq!(
                validate_name(&name),
                Err(NameError::ControlCharacter),
                "U+{code:04X}"
            );
            assert_eq!(
                normalize_name(&name),
                Err(NameError::ControlCharacter),
                "U+{code:04X}"
            );
        } else {
            assert_eq!(validate_name(&name), Ok(name.as_str()), "U+{code:04X}");
            let nfc: String = name.nfc().collect();
            assert_eq!(normalize_name(&name), Ok(nfc), "U+{code:04X}");
        }
    }
    // Private use alone holds 137,468 code points and unassigned ones over 800,000.
    assert!(refused > 900_000, "only {refused} refused");
}

#[test]
fn every_character_of_a_refused_category_is_removed_from_chat() {
    let mut removed = 0;
    let mut text = String::new();
    for c in every_char() {
        text.clear();
        text.extend(['a', c, 'b']);
        let code = u32::from(c);
        let shown = sanitize(&text);
        if SPACES_IN_CHAT.contains(&c) {
            assert_eq!(shown, "a b", "U+{code:04X}");
        } else if SEQUENCE_STARTS.contains(&c) {
            assert_eq!(shown, "a", "U+{code:04X}");
        } else if in_refused_category(c) || BLANK_FILLERS.contains(&c) {
            removed += 1;
            assert_eq!(shown, "ab", "U+{code:04X}");
        } else {
            assert_eq!(shown, text.nfc().collect::<String>(), "U+{code:04X}");
        }
    }
    assert!(removed > 900_000, "only {removed} removed");
}

#[test]
fn blank_fillers_are_refused_in_names_and_removed_from_chat() {
    for filler in BLANK_FILLERS {
        let code = u32::from(filler);
        // Letters, symbols and marks by category: only the list catches them.
        assert!(!in_refused_category(filler), "U+{code:04X}");
        assert_eq!(
            validate_name(&format!("ada{filler}")),
            Err(NameError::ControlCharacter),
            "U+{code:04X}"
        );
        assert_eq!(
            validate_name(&filler.to_string()),
            Err(NameError::ControlCharacter),
            "U+{code:04X}"
        );
        assert_eq!(
            sanitize(&format!("a{filler}{filler}b")),
            "ab",
            "U+{code:04X}"
        );
    }
}

#[test]
fn csi_sequences_are_removed_whole() {
    for text in [
        "a\u{1b}[31mb",
        "a\u{1b}[2Jb",
        "a\u{1b}[?25lb",
        "a\u{1b}[38;2;255;0;0mb",
        "a\u{1b}[2 qb",
        "a\u{1b}[Hb",
        "a\u{9b}2Jb",
        "a\u{9b}?1049hb",
    ] {
        assert_eq!(sanitize(text), "ab", "{text:?}");
    }
    assert_eq!(
        sanitize("\u{1b}[1mbold\u{1b}[0m and \u{1b}[4m"),
        "bold and "
    );
}

#[test]
fn osc_and_other_control_strings_are_removed_whole() {
    for text in [
        "a\u{1b}]0;a title\u{7}b",
        "a\u{1b}]0;a title\u{1b}\\b",
        "a\u{1b}]52;c;aGVsbG8=\u{7}b",
        "a\u{9d}0;a title\u{9c}b",
        "a\u{9d}0;a title\u{7}b",
        "a\u{1b}P1$r\u{1b}\\b",
        "a\u{90}q\u{9c}b",
        "a\u{1b}_private\u{1b}\\b",
        "a\u{9f}private\u{9c}b",
        "a\u{1b}^message\u{1b}\\b",
        "a\u{9e}message\u{9c}b",
        "a\u{1b}Xstring\u{1b}\\b",
        "a\u{98}string\u{9c}b",
    ] {
        assert_eq!(sanitize(text), "ab", "{text:?}");
    }
    assert_eq!(
        sanitize("see \u{1b}]8;;https://example.com\u{1b}\\here\u{1b}]8;;\u{1b}\\!"),
        "see here!"
    );
    assert_eq!(sanitize("a\u{1b}]0;never ends"), "a");
    assert_eq!(sanitize("a\u{9d}never ends"), "a");
}

#[test]
fn other_escape_sequences_are_removed_whole() {
    for text in [
        "a\u{1b}7b",
        "a\u{1b}8b",
        "a\u{1b}cb",
        "a\u{1b}Mb",
        "a\u{1b}=b",
        "a\u{1b}(Bb",
        "a\u{1b})0b",
        "a\u{1b}#8b",
        "a\u{1b} Fb",
        "a\u{1b}\\b",
    ] {
        assert_eq!(sanitize(text), "ab", "{text:?}");
    }
    assert_eq!(sanitize("a\u{1b}\u{e9}"), "a\u{e9}");
    assert_eq!(
        validate_name("\u{1b}(0ada"),
        Err(NameError::ControlCharacter)
    );
}

#[test]
fn a_sequence_cut_short_keeps_the_character_that_ended_it() {
    // A CSI ends early at the first character that fits none of its parts: that one is kept.
    assert_eq!(clean_chat("a\u{1b}[31\u{e9}b").unwrap(), "a\u{e9}b");
    assert_eq!(clean_chat("a\u{1b}[31;\u{1b}7b").unwrap(), "ab");
    // An ESC with intermediate bytes and no final byte: the ESC and its intermediates go, what
    // follows stays (and at the end of the line nothing is left of it).
    assert_eq!(clean_chat("a\u{1b}(\u{e9}b").unwrap(), "a\u{e9}b");
    assert_eq!(clean_chat("a\u{1b}( #\u{e9}").unwrap(), "a\u{e9}");
    assert_eq!(clean_chat("ab\u{1b}(").unwrap(), "ab");
}

#[test]
fn chat_is_normalised_to_nfc() {
    let composed = sanitize("caf\u{65}\u{301}");
    assert_eq!(composed, "caf\u{e9}");
    assert_eq!(composed.chars().count(), 4);
    assert_eq!(sanitize("\u{212b}"), "\u{c5}");
    assert_eq!(sanitize("\u{1100}\u{1161}"), "\u{ac00}");
    // Normalised after filtering, so a removed character does not keep a mark from its base.
    assert_eq!(sanitize("e\u{200b}\u{301}"), "\u{e9}");
    // Compatibility characters are left alone: NFC, not NFKC.
    assert_eq!(sanitize("\u{fb01}"), "\u{fb01}");
}

#[test]
fn names_that_differ_only_by_normalisation_are_one_name() {
    let composed = normalize_name("Ren\u{e9}e");
    assert_eq!(composed, Ok("Ren\u{e9}e".to_owned()));
    assert_eq!(normalize_name("Rene\u{301}e"), composed);
    assert_eq!(normalize_name("  Rene\u{301}e "), composed);
    // Length is counted after normalising: 24 decomposed letters are 24 characters.
    let decomposed = "e\u{301}".repeat(MAX_NAME_CHARS);
    assert_eq!(validate_name(&decomposed), Ok(decomposed.as_str()));
    assert_eq!(
        normalize_name(&decomposed),
        Ok("\u{e9}".repeat(MAX_NAME_CHARS))
    );
    let too_long = "e\u{301}".repeat(MAX_NAME_CHARS + 1);
    assert_eq!(validate_name(&too_long), Err(NameError::TooLong));
    assert_eq!(normalize_name(&too_long), Err(NameError::TooLong));
}

#[test]
fn names_blank_after_filtering_are_refused() {
    for blank in [
        "",
        "   ",
        "\u{a0}\u{2003}\u{3000}",
        "\u{fe0f}",
        " \u{fe0f} \u{34f} ",
        "\u{301}\u{301}",
        "\u{180b}",
    ] {
        assert_eq!(validate_name(blank), Err(NameError::Empty), "{blank:?}");
    }
    for invisible in [
        "\u{3164}",
        "\u{2800}\u{2800}",
        "\u{200b}",
        " \u{ad} ",
        "\u{e0020}",
    ] {
        assert_eq!(
            validate_name(invisible),
            Err(NameError::ControlCharacter),
            "{invisible:?}"
        );
    }
    assert_eq!(validate_name("\u{3000}ada\u{3000}"), Ok("ada"));
    assert_eq!(
        validate_name("ada \u{2764}\u{fe0f}"),
        Ok("ada \u{2764}\u{fe0f}")
    );
    assert_eq!(validate_name("\u{1f3b2}"), Ok("\u{1f3b2}"));
}

#[test]
fn names_are_trimmed_and_limited() {
    assert_eq!(validate_name("  ada "), Ok("ada"));
    assert_eq!(
        validate_name(&"x".repeat(MAX_NAME_CHARS)).map(str::len),
        Ok(24)
    );
    assert_eq!(
        validate_name(&"x".repeat(MAX_NAME_CHARS + 1)),
        Err(NameError::TooLong)
    );
    assert_eq!(validate_name("évelyne ♛"), Ok("évelyne ♛"));
    assert_eq!(
        validate_name("ada\tlovelace"),
        Err(NameError::ControlCharacter)
    );
    assert_eq!(
        validate_name("\u{1b}[31mred"),
        Err(NameError::ControlCharacter)
    );
    assert_eq!(
        validate_name("\u{202e}evil"),
        Err(NameError::ControlCharacter)
    );
}

#[test]
fn chat_tabs_and_line_breaks_become_one_space_each() {
    assert_eq!(sanitize("a\tb"), "a b");
    assert_eq!(sanitize("a\r\nb"), "a b");
    assert_eq!(sanitize("a\n\nb"), "a  b");
    assert_eq!(sanitize("a\r\u{1b}[0m\nb"), "a b");
    for text in ["a\u{b}b", "a\u{c}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b"] {
        assert_eq!(sanitize(text), "a b", "{text:?}");
    }
    // sanitize trims nothing; clean_chat does.
    assert_eq!(sanitize(" \nhi\n "), "  hi  ");
}

#[test]
fn chat_lines_are_trimmed_refused_when_blank_and_counted_after_cleaning() {
    assert_eq!(clean_chat("  good luck!\n"), Ok("good luck!".to_owned()));
    assert_eq!(clean_chat("\u{1b}[1mgg\u{1b}[0m"), Ok("gg".to_owned()));
    for blank in [
        "",
        " \n\t ",
        "\u{fe0f}",
        "\u{1b}[31m \u{200b}",
        "\u{3164}",
        "\u{1b}]0;x\u{7}",
    ] {
        assert_eq!(clean_chat(blank), Err(ChatError::Empty), "{blank:?}");
    }
    let decomposed = "e\u{301}".repeat(MAX_CHAT_CHARS);
    assert_eq!(clean_chat(&decomposed), Ok("\u{e9}".repeat(MAX_CHAT_CHARS)));
    let padded = format!("\u{1b}[1m{}\u{200b}  ", "x".repeat(MAX_CHAT_CHARS));
    assert_eq!(clean_chat(&padded), Ok("x".repeat(MAX_CHAT_CHARS)));
    let too_long = "x".repeat(MAX_CHAT_CHARS + 1);
    assert_eq!(clean_chat(&too_long), Err(ChatError::TooLong));
}
