//! Invite codes: 50 random bits as ten characters people can read aloud and type back.
//!
//! The alphabet is Crockford's base 32 (digits and capitals without I, L, O and U), so a code is
//! never confused by ear or eye; it is shown in groups as `K7QM-4TXP-2D`. Reading accepts any case,
//! with or without the dashes and spaces, and takes I and L for 1 and O for 0, as Crockford does.

/// Crockford's base 32 alphabet.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters in a code: 10 × 5 = 50 bits.
const LEN: usize = 10;

/// A fresh random code in its canonical form (ten characters, no dashes).
pub(crate) fn generate() -> String {
    let mut bytes = [0u8; LEN];
    fill_random(&mut bytes);
    bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b & 31)] as char)
        .collect()
}

/// The code as shown to people: `K7QM-4TXP-2D`.
pub(crate) fn display(canonical: &str) -> String {
    let mut out = String::with_capacity(LEN + 2);
    for (i, c) in canonical.chars().enumerate() {
        if i == 4 || i == 8 {
            out.push('-');
        }
        out.push(c);
    }
    out
}

/// Reads a code as a person typed it; `None` if it cannot be one.
pub(crate) fn parse(input: &str) -> Option<String> {
    let mut out = String::with_capacity(LEN);
    for c in input.chars() {
        let c = match c.to_ascii_uppercase() {
            '-' | ' ' => continue,
            'I' | 'L' => '1',
            'O' => '0',
            c if c.is_ascii() && ALPHABET.contains(&(c as u8)) => c,
            _ => return None,
        };
        if out.len() == LEN {
            return None;
        }
        out.push(c);
    }
    (out.len() == LEN).then_some(out)
}

/// Fills `bytes` from the operating system's random source.
pub(crate) fn fill_random(bytes: &mut [u8]) {
    // The OS source failing means the machine cannot run a server safely at all.
    getrandom::fill(bytes).expect("the operating system's random source is unavailable");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_people() {
        for _ in 0..100 {
            let code = generate();
            assert_eq!(code.len(), LEN);
            let shown = display(&code);
            assert_eq!(shown.len(), LEN + 2);
            assert_eq!(parse(&shown).as_deref(), Some(code.as_str()));
            assert_eq!(parse(&shown.to_lowercase()).as_deref(), Some(code.as_str()));
        }
        assert_eq!(parse("k7qm 4txp 2d").as_deref(), Some("K7QM4TXP2D"));
        assert_eq!(parse("IL0O-0000-00").as_deref(), Some("1100000000"));
        assert_eq!(parse("K7QM-4TXP"), None);
        assert_eq!(parse("K7QM-4TXP-2DD"), None);
        assert_eq!(parse("K7QM-4TXP-2U"), None);
        assert_eq!(parse("K7QM-4TXP-2é"), None);
    }
}
