//! The league's pairings: the double round robin's games (Berger's tables). Its table (points,
//! each round one Glicko-2 rating period) is pure too, and the store keeps it as games end:
//! `crate::rules::league_table`.

pub use crate::rules::league_table::{Finish, Pairing, Row, Table};

/// The games of one round among `entrants`: every ordered pair once, so each two meet with each
/// colour. They come in sets in which nobody plays twice (the circle method of Berger's tables:
/// one sitting out of each set when the number is odd), the first half of the sets with one
/// colour for each pair and the second with the other.
pub fn round(entrants: usize) -> Vec<Pairing> {
    let seats = entrants + entrants % 2;
    let mut ring: Vec<usize> = (0..seats).collect();
    let mut first = Vec::with_capacity(entrants * entrants.saturating_sub(1) / 2);
    for set in 0..seats.saturating_sub(1) {
        for i in 0..seats / 2 {
            let (a, b) = (ring[i], ring[seats - 1 - i]);
            if a < entrants && b < entrants {
                // Colours alternate, so that no entrant has the same one all half round.
                let (x, o) = if (set + i) % 2 == 0 { (a, b) } else { (b, a) };
                first.push(Pairing { x, o });
            }
        }
        ring[1..].rotate_right(1);
    }
    let second = first.iter().map(|g| Pairing { x: g.o, o: g.x });
    let mut games = first.clone();
    games.extend(second);
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_pairs_everyone_with_everyone_with_each_colour_once() {
        for entrants in 2..8 {
            let games = round(entrants);
            assert_eq!(games.len(), entrants * (entrants - 1));
            let mut seen = std::collections::HashSet::new();
            for game in &games {
                assert_ne!(game.x, game.o);
                assert!(seen.insert((game.x, game.o)), "{game:?} twice");
            }
        }
    }

    #[test]
    fn nobody_plays_twice_in_a_set() {
        for entrants in [4, 5, 6] {
            let per_set = entrants / 2;
            for set in round(entrants).chunks(per_set) {
                let mut playing: Vec<usize> = set.iter().flat_map(|g| [g.x, g.o]).collect();
                playing.sort_unstable();
                playing.dedup();
                assert_eq!(playing.len(), set.len() * 2, "{set:?}");
            }
        }
    }
}
