//! How people name cells, everywhere they read or type one (the protocol keeps its 0-based
//! numbers): classic's cells are 1 to 9, row by row from the top left, as the digit keys lie;
//! the bigger boards use coordinates, a column letter and a row number from the top left (`b3` on
//! four), with the layer's number first on the cubes (`2b3`: layer 2, column b, row 3).

use noughts_engine::Variant;

/// The name people use for `cell`.
pub fn cell_name(variant: Variant, cell: usize) -> String {
    let coords = variant.coords(cell);
    match (variant, coords.as_slice()) {
        (Variant::Classic, _) => (cell + 1).to_string(),
        (_, [row, col]) => format!("{}{}", column(*col), row + 1),
        (_, [layer, row, col]) => format!("{}{}{}", layer + 1, column(*col), row + 1),
        _ => cell.to_string(),
    }
}

/// The cell a person means by `text` (its name, case and surrounding spaces aside).
pub fn parse_cell(variant: Variant, text: &str) -> Option<usize> {
    let text = text.trim().to_ascii_lowercase();
    if variant == Variant::Classic {
        let n: usize = text.parse().ok()?;
        return (1..=variant.cells()).contains(&n).then(|| n - 1);
    }
    let side = variant.side();
    let (layer, rest) = if variant.dims() == 3 {
        let digit = text.chars().next()?.to_digit(10)? as usize;
        (Some(digit.checked_sub(1)?), &text[1..])
    } else {
        (None, text.as_str())
    };
    let mut chars = rest.chars();
    let col = (chars.next()? as usize).checked_sub('a' as usize)?;
    let row: usize = chars.as_str().parse().ok()?;
    let row = row.checked_sub(1)?;
    if col >= side || row >= side || layer.is_some_and(|l| l >= side) {
        return None;
    }
    let coords: Vec<usize> = layer.into_iter().chain([row, col]).collect();
    variant.cell_at(&coords)
}

/// What a person may type for a cell of `variant`, for messages.
pub fn cell_hint(variant: Variant) -> &'static str {
    match variant {
        Variant::Classic => "1 to 9, row by row from the top left",
        Variant::Four => "a column a-d and a row 1-4, like b3",
        Variant::Cube => "a layer 1-3, a column a-c and a row 1-3, like 2b3",
        Variant::Qubic => "a layer 1-4, a column a-d and a row 1-4, like 3c2",
    }
}

fn column(col: usize) -> char {
    char::from(b'a' + u8::try_from(col).unwrap_or(25).min(25))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_has_a_name_that_reads_back() {
        for variant in Variant::ALL {
            for cell in 0..variant.cells() {
                let name = cell_name(variant, cell);
                assert_eq!(parse_cell(variant, &name), Some(cell), "{variant:?} {name}");
                assert_eq!(parse_cell(variant, &name.to_uppercase()), Some(cell));
            }
        }
        assert_eq!(cell_name(Variant::Classic, 0), "1");
        assert_eq!(cell_name(Variant::Classic, 8), "9");
        assert_eq!(cell_name(Variant::Four, 0), "a1");
        assert_eq!(cell_name(Variant::Four, 6), "c2");
        assert_eq!(cell_name(Variant::Cube, 13), "2b2");
        assert_eq!(cell_name(Variant::Qubic, 63), "4d4");
        for (variant, bad) in [
            (Variant::Classic, "0"),
            (Variant::Classic, "10"),
            (Variant::Four, "e1"),
            (Variant::Four, "a5"),
            (Variant::Four, "a0"),
            (Variant::Cube, "4a1"),
            (Variant::Cube, "a1"),
            (Variant::Qubic, "0a1"),
            (Variant::Qubic, ""),
        ] {
            assert_eq!(parse_cell(variant, bad), None, "{variant:?} {bad:?}");
        }
    }
}
