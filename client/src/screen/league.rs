//! The engines' league in the leaderboard tab (`e` turns to it and back): a variant's table,
//! followed while shown so that each game's end redraws it, and the levels' ratings the AI's
//! form shows beside the level chosen.

use noughts_protocol::{ClientMessage, GameInfo, GameKind, LeagueTable, Variant};

use crate::form::LevelRating;
use ratatui::text::Line;

use super::rows::Lines;
use super::theme::Theme;
use super::widgets::{fit, truncate};

/// The league as the client holds it.
#[derive(Debug, Clone, Default)]
pub struct League {
    /// Whether the leaderboard tab shows the league rather than the players.
    pub shown: bool,
    /// The variant whose table the server pushes to us.
    pub following: Option<Variant>,
    /// The tables as last sent, one per variant at most; names sanitised.
    pub tables: Vec<LeagueTable>,
    /// The variants whose table was asked for (for the levels' ratings), once each.
    pub asked: Vec<Variant>,
}

impl League {
    /// Takes a table the server sent.
    pub fn receive(&mut self, table: LeagueTable) {
        self.tables.retain(|t| t.variant != table.variant);
        self.tables.push(table);
    }

    /// `variant`'s table, if the server sent it.
    pub fn table(&self, variant: Variant) -> Option<&LeagueTable> {
        self.tables.iter().find(|t| t.variant == variant)
    }

    /// How the league rates each level, on every variant whose table the server sent.
    pub fn ratings(&self) -> Vec<LevelRating> {
        let mut ratings = Vec::new();
        for table in &self.tables {
            for line in &table.standings {
                if let Some(level) = line.entrant.level {
                    ratings.push(LevelRating {
                        variant: table.variant,
                        level,
                        rating: line.rating,
                        deviation: line.deviation,
                    });
                }
            }
        }
        ratings
    }

    /// Turns the tab to the league (following `variant`'s) or back to the players.
    pub fn toggle(&mut self, variant: Variant) -> Option<ClientMessage> {
        self.shown = !self.shown;
        if self.shown {
            self.follow(variant)
        } else {
            self.leave()
        }
    }

    /// Follows `variant`'s table while the league is shown.
    pub fn follow(&mut self, variant: Variant) -> Option<ClientMessage> {
        if !self.shown || self.following == Some(variant) {
            return None;
        }
        self.following = Some(variant);
        Some(ClientMessage::League(noughts_protocol::League {
            variant,
            follow: true,
        }))
    }

    /// Stops following (the tab is left, or shows the players).
    pub fn leave(&mut self) -> Option<ClientMessage> {
        self.following.take().map(|_| ClientMessage::UnfollowLeague)
    }

    /// The tables to ask for, once each, so that the AI's form can rate its levels: those of
    /// the variants the lobby lists a war game of.
    pub fn wanted(&mut self, games: &[GameInfo]) -> Vec<ClientMessage> {
        let mut asks = Vec::new();
        for game in games.iter().filter(|g| g.kind == GameKind::War) {
            if self.asked.contains(&game.variant) || self.table(game.variant).is_some() {
                continue;
            }
            self.asked.push(game.variant);
            asks.push(ClientMessage::League(noughts_protocol::League {
                variant: game.variant,
                follow: false,
            }));
        }
        asks
    }
}

/// The league's table of `variant`, as the leaderboard tab draws it below its variants.
pub(super) fn lines(
    league: &League,
    variant: Variant,
    theme: Theme,
    width: usize,
    mut lines: Vec<Line<'static>>,
) -> Lines<'static> {
    let Some(table) = league.table(variant) else {
        lines.push(Line::styled(" Asking the server…", theme.dim()));
        return plain(lines);
    };
    lines.push(Line::styled(
        truncate(
            &format!(
                " Engines' league · {} games · a round is {}",
                table.games, table.round_games
            ),
            width,
        ),
        theme.title(),
    ));
    lines.push(Line::styled(
        truncate(
            &format!(
                " {:>1} {:<12} {:>5} {:<9} {:>4} rating",
                "#", "entrant", "games", "W-D-L", "pts"
            ),
            width,
        ),
        theme.dim(),
    ));
    for (place, line) in table.standings.iter().enumerate() {
        let record = format!("{}-{}-{}", line.wins, line.draws, line.losses);
        let text = format!(
            " {:>1} {} {:>5} {:<9} {:>4} {}±{}",
            place + 1,
            fit(&line.name, 12),
            line.games,
            record,
            points(line.points),
            line.rating,
            2 * line.deviation
        );
        lines.push(Line::styled(truncate(&text, width), theme.text()));
    }
    lines.push(Line::raw(""));
    // A level by its name, a bot by the name on its line.
    let level = |e: &noughts_protocol::Entrant| -> String {
        let bot = e.bot.and_then(|bot| {
            let line = table.standings.iter().find(|s| s.entrant.bot == Some(bot));
            line.map(|line| line.name.clone())
        });
        e.level
            .map(|level| level.name().to_owned())
            .or(bot)
            .unwrap_or_else(|| "?".to_owned())
    };
    if let Some(playing) = &table.playing {
        let game = playing.game.map_or(String::new(), |g| format!(" (#{g})"));
        let text = format!(" Now: {} vs {}{game}", level(&playing.x), level(&playing.o));
        lines.push(Line::styled(truncate(&text, width), theme.text()));
    }
    let next: Vec<String> = table
        .next
        .iter()
        .map(|p| format!("{}–{}", level(&p.x), level(&p.o)))
        .collect();
    if !next.is_empty() {
        let text = format!(" Next: {}", next.join(", "));
        lines.push(Line::styled(truncate(&text, width), theme.dim()));
    }
    plain(lines)
}

/// Lines without rows to select.
fn plain(lines: Vec<Line<'static>>) -> Lines<'static> {
    Lines {
        lines,
        selected: None,
        first_row: 0,
        rows: 0,
    }
}

/// Points as the table writes them: `12.5`, `3`.
fn points(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    }
}
