//! The game screen's offers and absences, in words: the offer waiting (in the first person for
//! the one who made it, with its keys for the other), what became of the latest one, the
//! countdown of a player who left, and the claim open to the one left behind.

use std::time::Instant;

use noughts_protocol::{Mark, OfferKind};
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::widgets::{cols, truncate};
use crate::game::{GameView, News, format_countdown};

/// A player as these lines name them: by name, cut short.
fn name(game: &GameView, mark: Mark) -> String {
    truncate(&game.seat(mark).name, 12)
}

/// What an offer is, as its maker's own words say it ("a draw", "to take back your move").
fn what(offer: OfferKind) -> &'static str {
    match offer {
        OfferKind::Draw => "draw offer",
        OfferKind::Takeback => "takeback request",
        OfferKind::Rematch => "rematch offer",
    }
}

/// The offer waiting for an answer (a rematch once the game is over): its words, then its keys.
fn pending(game: &GameView, theme: Theme) -> Vec<Line<'static>> {
    let offer = match (game.is_over(), game.offer, game.rematch_offer) {
        (false, Some(offer), _) => offer,
        (true, _, Some(by)) => (by, OfferKind::Rematch),
        (true, _, None) if game.rematch_sent => (game.you().unwrap_or(Mark::X), OfferKind::Rematch),
        _ => return Vec::new(),
    };
    let (by, kind) = offer;
    let keys = |accept: &str| {
        Line::from(vec![
            Span::styled(accept.to_owned(), theme.key()),
            Span::styled(" accept · ", theme.dim()),
            Span::styled("n", theme.key()),
            Span::styled(" decline", theme.dim()),
        ])
    };
    match game.you() {
        Some(you) if you == by => {
            let text = match kind {
                OfferKind::Draw => "You offered a draw",
                OfferKind::Takeback => "You asked to take back your move",
                OfferKind::Rematch => "You offered a rematch",
            };
            vec![
                Line::styled(text, theme.key()),
                Line::from(vec![
                    Span::styled("x", theme.key()),
                    Span::styled(" cancel it", theme.dim()),
                ]),
            ]
        }
        Some(_) => {
            let (text, key) = match kind {
                OfferKind::Draw => ("offers a draw", "d"),
                OfferKind::Takeback => ("asks to take back their move", "u"),
                OfferKind::Rematch => ("offers a rematch", "r"),
            };
            vec![
                Line::styled(format!("{} {text}", name(game, by)), theme.key()),
                keys(key),
            ]
        }
        None => vec![Line::styled(
            format!("{} made a {}", name(game, by), what(kind)),
            theme.dim(),
        )],
    }
}

/// What just became of an offer, in the first person where it concerns this player.
fn news(game: &GameView, theme: Theme) -> Option<Line<'static>> {
    let you = game.you();
    let text = match game.news? {
        News::TakenBack { by } => match (you, by) {
            (Some(you), Some(by)) if you == by => "Your move was taken back".to_owned(),
            (Some(you), Some(_)) => format!("{} took back their move", name(game, you.opponent())),
            _ => "A move was taken back".to_owned(),
        },
        News::Declined { by, offer } => match you {
            Some(you) if you == by => {
                format!(
                    "{} declined your {}",
                    name(game, by.opponent()),
                    what(offer)
                )
            }
            Some(_) => format!("You declined the {}", what(offer)),
            None => format!("{} declined the {}", name(game, by.opponent()), what(offer)),
        },
        News::Withdrawn { by, offer } => match you {
            Some(you) if you == by => format!("You withdrew your {}", what(offer)),
            _ => format!("{} withdrew their {}", name(game, by), what(offer)),
        },
    };
    Some(Line::styled(text, theme.text()))
}

/// A player away from a live game: how long they have to come back; for the player left
/// behind, when the game may be claimed, then the keys that claim it.
fn away(game: &GameView, theme: Theme, now: Instant) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if game.is_over() {
        return lines;
    }
    for mark in [Mark::X, Mark::O] {
        let seat = game.seat(mark);
        if seat.connected || seat.level.is_some() {
            continue;
        }
        let who = if game.you() == Some(mark) {
            "You".to_owned()
        } else {
            name(game, mark)
        };
        lines.push(Line::styled(
            match game.grace_ms(mark, now) {
                Some(ms) => format!("{who} left: {} to return", format_countdown(ms)),
                None => format!("{who} left"),
            },
            theme.bad(),
        ));
        if game.you() == Some(mark.opponent()) {
            match game.claim_ms(now) {
                Some(0) => lines.push(Line::from(vec![
                    Span::styled("w", theme.key()),
                    Span::styled(" claim the win · ", theme.dim()),
                    Span::styled("=", theme.key()),
                    Span::styled(" a draw", theme.dim()),
                ])),
                Some(ms) => lines.push(Line::styled(
                    format!("You may claim in {}", format_countdown(ms)),
                    theme.dim(),
                )),
                None => {}
            }
        }
    }
    lines
}

/// Every line of offers and absences the players' panel shows, each at most `width` columns.
pub fn lines(game: &GameView, theme: Theme, now: Instant, width: usize) -> Vec<Line<'static>> {
    let mut lines = away(game, theme, now);
    lines.extend(pending(game, theme));
    lines.extend(news(game, theme));
    lines
        .into_iter()
        .flat_map(|line| wrap(line, width))
        .collect()
}

/// A line of one style cut into lines of at most `width` columns at spaces; a line of several
/// spans (keys) is kept whole.
fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.spans.len() != 1 || cols(&line.spans[0].content) <= width || width == 0 {
        return vec![line];
    }
    let style = line.spans[0].style;
    let mut out = Vec::new();
    let mut current = String::new();
    for word in line.spans[0].content.split(' ') {
        if !current.is_empty() && cols(&current) + 1 + cols(word) > width {
            out.push(Line::styled(std::mem::take(&mut current), style));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        out.push(Line::styled(current, style));
    }
    out
}

/// What a key about offers and claims does on the game screen, if it is one of theirs.
pub fn on_key(game: &GameView, key: char, now: Instant) -> Option<super::action::Action> {
    use super::action::Action;
    use noughts_protocol::{ClaimOutcome, ClientMessage};
    let id = game.id();
    let you = game.you()?;
    Some(match key {
        'n' if game.is_over() && game.rematch_offer.is_none_or(|by| by == you) => {
            Action::Say("There is no rematch offer to decline.".into())
        }
        'n' => Action::Send(ClientMessage::Decline { game: id }),
        'x' => Action::Send(ClientMessage::CancelOffer { game: id }),
        'w' | '=' => match game.claim_ms(now) {
            None => Action::Say("Your opponent is here: nothing to claim.".into()),
            Some(ms) if ms > 0 => Action::Say(format!(
                "You may claim the game in {}.",
                format_countdown(ms)
            )),
            Some(_) => Action::Send(ClientMessage::Claim {
                game: id,
                outcome: if key == 'w' {
                    ClaimOutcome::Win
                } else {
                    ClaimOutcome::Draw
                },
            }),
        },
        _ => return None,
    })
}
