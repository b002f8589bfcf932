//! Glicko-2 ratings, one per player and variant. Each rated game is its own rating period, as on
//! lichess; the maths is the `skillratings` crate's.

use noughts_protocol::Variant;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

/// A player's rating, deviation and volatility in one variant.
pub(crate) type Glicko = Glicko2Rating;

/// The system constant τ, which bounds how fast volatility changes; 0.5 is the value of
/// Glickman's worked example and within his recommended range.
pub(crate) const TAU: f64 = 0.5;

/// Where every player starts: 1500, deviation 350, volatility 0.06.
pub(crate) const NEW: Glicko = Glicko2Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};

fn config() -> Glicko2Config {
    Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    }
}

/// How a game went for one player: 1 a win, ½ a draw, 0 a loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Score {
    Win,
    Draw,
    Loss,
}

impl Score {
    fn outcome(self) -> Outcomes {
        match self {
            Score::Win => Outcomes::WIN,
            Score::Draw => Outcomes::DRAW,
            Score::Loss => Outcomes::LOSS,
        }
    }
}

/// A player's new rating after one rating period with `results` against those opponents.
pub(crate) fn rate_period(player: Glicko, results: &[(Glicko, Score)]) -> Glicko {
    let results: Vec<(Glicko, Outcomes)> = results
        .iter()
        .map(|(opponent, score)| (*opponent, score.outcome()))
        .collect();
    glicko2_rating_period(&player, &results, &config())
}

/// Both players' new ratings after one game between them, `x_score` from X's side.
pub(crate) fn rate_game(x: Glicko, o: Glicko, x_score: Score) -> (Glicko, Glicko) {
    let o_score = match x_score {
        Score::Win => Score::Loss,
        Score::Draw => Score::Draw,
        Score::Loss => Score::Win,
    };
    (
        rate_period(x, &[(o, x_score)]),
        rate_period(o, &[(x, o_score)]),
    )
}

/// A rating or deviation as the protocol shows it: whole points.
pub(crate) fn points(value: f64) -> u32 {
    if value.is_finite() && value > 0.0 {
        // Clamped first, so the cast cannot truncate.
        value.round().min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

/// A player's ratings in every variant, with the number of rated games behind each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ratings {
    glicko: [Glicko; 4],
    games: [u32; 4],
}

impl Default for Ratings {
    fn default() -> Self {
        Ratings {
            glicko: [NEW; 4],
            games: [0; 4],
        }
    }
}

impl Ratings {
    /// The position of `variant` in [`Variant::ALL`].
    pub(crate) fn slot(variant: Variant) -> usize {
        Variant::ALL
            .iter()
            .position(|&v| v == variant)
            .unwrap_or_default()
    }

    pub(crate) fn get(&self, variant: Variant) -> Glicko {
        self.glicko[Ratings::slot(variant)]
    }

    /// Rated games played in `variant`.
    pub(crate) fn games(&self, variant: Variant) -> u32 {
        self.games[Ratings::slot(variant)]
    }

    /// Sets the rating in `variant` as it stands after `games` rated games.
    pub(crate) fn set(&mut self, variant: Variant, rating: Glicko, games: u32) {
        self.glicko[Ratings::slot(variant)] = rating;
        self.games[Ratings::slot(variant)] = games;
    }

    /// Per variant, in [`Variant::ALL`] order: rating, deviation, volatility and rated games.
    pub(crate) fn parts(&self) -> [(f64, f64, f64, u32); 4] {
        std::array::from_fn(|i| {
            let g = self.glicko[i];
            (g.rating, g.deviation, g.volatility, self.games[i])
        })
    }

    /// The ratings [`Ratings::parts`] gave.
    pub(crate) fn from_parts(parts: [(f64, f64, f64, u32); 4]) -> Ratings {
        Ratings {
            glicko: parts.map(|(rating, deviation, volatility, _)| Glicko {
                rating,
                deviation,
                volatility,
            }),
            games: parts.map(|(_, _, _, games)| games),
        }
    }

    /// The rating in `variant` after one more rated game.
    pub(crate) fn record_game(&mut self, variant: Variant, rating: Glicko) {
        let games = self.games(variant).saturating_add(1);
        self.set(variant, rating, games);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glicko(rating: f64, deviation: f64) -> Glicko {
        Glicko {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    /// Glickman, "Example of the Glicko-2 system" (2013): a 1500/200 player beats a 1400/30
    /// player and loses to 1550/100 and 1700/300 in one rating period.
    #[test]
    fn reproduces_glickmans_worked_example() {
        let after = rate_period(
            glicko(1500.0, 200.0),
            &[
                (glicko(1400.0, 30.0), Score::Win),
                (glicko(1550.0, 100.0), Score::Loss),
                (glicko(1700.0, 300.0), Score::Loss),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_win_moves_both_ratings_the_right_way() {
        let (x, o) = rate_game(NEW, NEW, Score::Win);
        assert!(x.rating > 1500.0 && o.rating < 1500.0);
        assert!(
            (x.rating - 1500.0 + (o.rating - 1500.0)).abs() < 1e-6,
            "zero sum"
        );
        assert!(x.deviation < 350.0 && o.deviation < 350.0);
        let (x, o) = rate_game(glicko(1700.0, 60.0), glicko(1400.0, 60.0), Score::Draw);
        assert!(
            x.rating < 1700.0 && o.rating > 1400.0,
            "a draw favours the weaker"
        );
    }

    #[test]
    fn shows_whole_points() {
        assert_eq!(points(1464.06), 1464);
        assert_eq!(points(151.52), 152);
        assert_eq!(points(f64::NAN), 0);
        assert_eq!(points(-3.0), 0);
    }
}
