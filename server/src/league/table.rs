//! The league's table, pure: the double round robin's pairings (Berger's tables), points 1 a
//! win and ½ a draw, and each round one Glicko-2 rating period, every entrant rated from its
//! games of the round against the others' ratings from before it. No tasks, clocks or store.

use crate::rules::rating::{Glicko, NEW, Score, rate_period};

/// One game of a round: the entrants, by their place in the league, who play X and O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub x: usize,
    pub o: usize,
}

/// How a game of the league ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    XWon,
    OWon,
    Drawn,
}

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

/// One entrant's line of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub played: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Glicko-2 rating and deviation (about a third of the 95% interval's width), after the
    /// last round closed.
    pub rating: f64,
    pub deviation: f64,
}

impl Row {
    /// Points: 1 a win, ½ a draw.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }
}

/// The league's table: each entrant's results and rating, and the games of the round under way.
#[derive(Debug, Clone)]
pub struct Table {
    rows: Vec<Row>,
    ratings: Vec<Glicko>,
    /// The round's games so far, each entrant's with its opponent and its own score.
    round: Vec<Vec<(usize, Score)>>,
}

impl Table {
    /// A table of `entrants`, each unrated (1500, deviation 350).
    pub fn new(entrants: usize) -> Table {
        let row = Row {
            played: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            rating: NEW.rating,
            deviation: NEW.deviation,
        };
        Table {
            rows: vec![row; entrants],
            ratings: vec![NEW; entrants],
            round: vec![Vec::new(); entrants],
        }
    }

    /// Adds an entrant (a bot that entered), unrated, at the next place.
    pub fn add_entrant(&mut self) {
        self.rows.push(Table::new(1).rows[0]);
        self.ratings.push(NEW);
        self.round.push(Vec::new());
    }

    /// Counts one finished game: in the table at once, in the ratings when the round closes.
    /// A pairing naming an entrant the table does not have is ignored.
    pub fn record(&mut self, game: Pairing, finish: Finish) {
        if game.x >= self.rows.len() || game.o >= self.rows.len() || game.x == game.o {
            return;
        }
        let (x, o) = match finish {
            Finish::XWon => (Score::Win, Score::Loss),
            Finish::OWon => (Score::Loss, Score::Win),
            Finish::Drawn => (Score::Draw, Score::Draw),
        };
        for (me, them, score) in [(game.x, game.o, x), (game.o, game.x, o)] {
            let row = &mut self.rows[me];
            row.played += 1;
            match score {
                Score::Win => row.wins += 1,
                Score::Draw => row.draws += 1,
                Score::Loss => row.losses += 1,
            }
            self.round[me].push((them, score));
        }
    }

    /// Closes the round: every entrant is rated from its games in it, against its opponents'
    /// ratings from before the round (an entrant without a game keeps its rating).
    pub fn close_round(&mut self) {
        let before = self.ratings.clone();
        for (me, games) in self.round.iter_mut().enumerate() {
            if games.is_empty() {
                continue;
            }
            let results: Vec<(Glicko, Score)> = games
                .drain(..)
                .map(|(them, score)| (before[them], score))
                .collect();
            let rated = rate_period(before[me], &results);
            self.ratings[me] = rated;
            self.rows[me].rating = rated.rating;
            self.rows[me].deviation = rated.deviation;
        }
    }

    /// Each entrant's line, in the league's order.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
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

    #[test]
    fn the_table_counts_points_and_rates_the_stronger_higher() {
        // Entrant 0 beats 1 and 2 with both colours; 1 and 2 draw; over rounds the ratings
        // part and settle with the deviations shrinking.
        let mut table = Table::new(3);
        for _ in 0..20 {
            for game in round(3) {
                let finish = match (game.x, game.o) {
                    (0, _) => Finish::XWon,
                    (_, 0) => Finish::OWon,
                    _ => Finish::Drawn,
                };
                table.record(game, finish);
            }
            table.close_round();
        }
        let rows = table.rows();
        assert_eq!(rows[0].points(), 80.0);
        assert_eq!((rows[1].wins, rows[1].draws, rows[1].losses), (0, 40, 40));
        assert!(rows[0].rating > rows[1].rating + 200.0, "{rows:?}");
        assert!((rows[1].rating - rows[2].rating).abs() < 1.0, "{rows:?}");
        // An entrant that wins every game says less about how strong it is than one that draws.
        assert!(
            rows[0].deviation < 200.0 && rows[1].deviation < 100.0,
            "{rows:?}"
        );
    }

    #[test]
    fn a_game_of_entrants_the_table_lacks_is_ignored() {
        let mut table = Table::new(2);
        table.record(Pairing { x: 0, o: 5 }, Finish::XWon);
        table.record(Pairing { x: 1, o: 1 }, Finish::Drawn);
        table.close_round();
        assert!(
            table
                .rows()
                .iter()
                .all(|r| r.played == 0 && r.rating == 1500.0)
        );
    }
}
