//! Which characters of text from other people may be shown, decided by Unicode general category.

use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Characters of visible categories (letters and symbols) that render as nothing: the Hangul
/// fillers, the blank braille pattern and the Khmer inherent vowels. They would let a name or a
/// chat line look empty, or two names look the same.
pub(super) const BLANK_FILLERS: [char; 7] = [
    '\u{115f}', // HANGUL CHOSEONG FILLER
    '\u{1160}', // HANGUL JUNGSEONG FILLER
    '\u{17b4}', // KHMER VOWEL INHERENT AQ
    '\u{17b5}', // KHMER VOWEL INHERENT AA
    '\u{2800}', // BRAILLE PATTERN BLANK
    '\u{3164}', // HANGUL FILLER
    '\u{ffa0}', // HALFWIDTH HANGUL FILLER
];

/// Whether `c` may never be shown: a control (Cc), format (Cf), line separator (Zl), paragraph
/// separator (Zp), private-use (Co), surrogate (Cs) or unassigned (Cn) character, or a blank
/// filler. Format characters include the bidirectional controls, zero-width spaces and joiners,
/// U+00AD SOFT HYPHEN, U+061C, U+2060 to U+2064, U+FEFF, the interlinear annotation characters
/// and the tag characters; unassigned code points include the noncharacters.
pub(super) fn is_refused(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    ) || BLANK_FILLERS.contains(&c)
}

/// Whether `c` breaks a line or moves to the next tab stop; chat shows each as a space.
pub(super) fn becomes_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether `c` shows something by itself: a letter (L), number (N), punctuation (P) or symbol (S)
/// that is not a blank filler. Spaces (Zs) and marks (M) alone leave text looking blank.
pub(super) fn is_visible(c: char) -> bool {
    matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Letter
            | GeneralCategoryGroup::Number
            | GeneralCategoryGroup::Punctuation
            | GeneralCategoryGroup::Symbol
    ) && !BLANK_FILLERS.contains(&c)
}
