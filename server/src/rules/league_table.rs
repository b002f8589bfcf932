//! The engines' league's table, pure: points 1 a win and ½ a draw, and each round one Glicko-2
//! rating period, every entrant rated from its games of the round against the others' ratings
//! from before it. No tasks, clocks or store: the store keeps a running table with it (a line
//! counted as each game ends, the ratings moved as each round closes), and the same table fed
//! every counted game in order builds it anew.

use super::rating::{Glicko, NEW, Score, rate_period};

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

impl Finish {
    /// X's and O's scores.
    pub(crate) fn scores(self) -> [Score; 2] {
        match self {
            Finish::XWon => [Score::Win, Score::Loss],
            Finish::OWon => [Score::Loss, Score::Win],
            Finish::Drawn => [Score::Draw, Score::Draw],
        }
    }
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
    /// A line without a game, unrated (1500, deviation 350).
    pub const NEW: Row = Row {
        played: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        rating: NEW.rating,
        deviation: NEW.deviation,
    };

    /// Points: 1 a win, ½ a draw.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// Counts one game that scored `score`.
    pub(crate) fn count(&mut self, score: Score) {
        self.played += 1;
        match score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
        }
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
        Table {
            rows: vec![Row::NEW; entrants],
            ratings: vec![NEW; entrants],
            round: vec![Vec::new(); entrants],
        }
    }

    /// A table taken up where it was kept: each entrant's line and its rating (with the
    /// volatility the line does not show) as the last round left it, no game of the round under
    /// way yet (see [`Table::pend`]).
    pub(crate) fn resume(lines: impl IntoIterator<Item = (Row, Glicko)>) -> Table {
        let (rows, ratings): (Vec<Row>, Vec<Glicko>) = lines.into_iter().unzip();
        let round = vec![Vec::new(); rows.len()];
        Table {
            rows,
            ratings,
            round,
        }
    }

    /// Adds an entrant (a bot that entered), unrated, at the next place.
    pub fn add_entrant(&mut self) {
        self.rows.push(Row::NEW);
        self.ratings.push(NEW);
        self.round.push(Vec::new());
    }

    /// Counts one finished game: in the table at once, in the ratings when the round closes.
    /// A pairing naming an entrant the table does not have is ignored.
    pub fn record(&mut self, game: Pairing, finish: Finish) {
        if self.pend(game, finish) {
            let [x, o] = finish.scores();
            self.rows[game.x].count(x);
            self.rows[game.o].count(o);
        }
    }

    /// Puts a game the lines count already into the round under way, for the ratings when it
    /// closes; false (and nothing done) if it names an entrant the table does not have, or
    /// the same one twice.
    pub(crate) fn pend(&mut self, game: Pairing, finish: Finish) -> bool {
        if game.x >= self.rows.len() || game.o >= self.rows.len() || game.x == game.o {
            return false;
        }
        let [x, o] = finish.scores();
        self.round[game.x].push((game.o, x));
        self.round[game.o].push((game.x, o));
        true
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

    /// Each entrant's rating, deviation and volatility as the last round left them.
    pub(crate) fn ratings(&self) -> &[Glicko] {
        &self.ratings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::league::round;

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
