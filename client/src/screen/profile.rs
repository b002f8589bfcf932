//! A player's profile, atop the history tab: the name (a guest marked as one), the rating and
//! results in each variant played, a chart of the rating over the rated games listed, and the
//! player's places on arenas' podiums.

use noughts_protocol::{GameSummary, PlayerId, Profile, Variant};
use ratatui::text::Line;

use super::theme::Theme;
use super::widgets::{person, truncate};

/// The chart's bars, lowest to highest.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The most rated games the chart shows: the latest.
const CHART_GAMES: usize = 40;

/// `ratings` as a row of bars, the lowest at the bottom and the highest at the top.
pub fn sparkline(ratings: &[u32]) -> String {
    let (Some(&low), Some(&high)) = (ratings.iter().min(), ratings.iter().max()) else {
        return String::new();
    };
    let span = high.saturating_sub(low).max(1);
    ratings
        .iter()
        .map(|&r| BARS[((r - low) as usize * (BARS.len() - 1)).div_ceil(span as usize)])
        .collect()
}

/// `player`'s rating after each rated game of `variant` among `games` (newest first, as
/// `history` lists them), oldest first, from the rating going into the first.
pub fn rating_points(games: &[GameSummary], player: PlayerId, variant: Variant) -> Vec<u32> {
    let seat = |game: &'_ GameSummary| {
        [&game.x, &game.o]
            .into_iter()
            .find(|seat| seat.player == Some(player))
            .and_then(|seat| Some((seat.rating?, seat.rating_change)))
    };
    let rated: Vec<(u32, Option<i32>)> = games
        .iter()
        .filter(|game| game.rated && game.variant == variant)
        .filter_map(seat)
        .take(CHART_GAMES)
        .collect();
    let mut points: Vec<u32> = rated
        .iter()
        .map(|&(rating, change)| rating.saturating_add_signed(change.unwrap_or(0)))
        .collect();
    if let Some(&(first, _)) = rated.last() {
        points.push(first);
    }
    points.reverse();
    points
}

/// The profile's lines: the name, the ratings and results per variant played, and the chart of
/// the rating in `variant` (that of the game selected) when it has rated games listed.
pub(super) fn lines(
    profile: &Profile,
    games: &[GameSummary],
    variant: Option<Variant>,
    theme: Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let name = person(&profile.name, profile.guest, profile.bot, 24);
    let mut lines = vec![Line::styled(
        truncate(&format!(" {name}"), width),
        theme.title(),
    )];
    let played: Vec<String> = profile
        .variants
        .iter()
        .filter(|stats| stats.games > 0)
        .map(|stats| {
            format!(
                "{} {} ±{} ({} rated; {}-{}-{})",
                stats.variant.name(),
                stats.rating,
                stats.deviation,
                stats.rated_games,
                stats.wins,
                stats.draws,
                stats.losses
            )
        })
        .collect();
    let played = match played.is_empty() {
        true => " No finished games yet.".to_owned(),
        false => format!(" {}", played.join(" · ")),
    };
    lines.push(Line::styled(truncate(&played, width), theme.dim()));
    let variant = variant.or_else(|| games.iter().find(|g| g.rated).map(|g| g.variant));
    if let Some(variant) = variant {
        let points = rating_points(games, profile.player, variant);
        if let (Some(first), Some(last)) = (points.first(), points.last())
            && points.len() > 1
        {
            let chart = format!(
                " {} rating {} {first}→{last}",
                variant.name(),
                sparkline(&points)
            );
            lines.push(Line::styled(truncate(&chart, width), theme.text()));
        }
    }
    if !profile.podiums.is_empty() {
        let places: Vec<String> = profile
            .podiums
            .iter()
            .map(|p| {
                let place = match p.place {
                    1 => "1st",
                    2 => "2nd",
                    _ => "3rd",
                };
                format!("{place} {} ({}, {})", p.name, p.variant.name(), p.score)
            })
            .collect();
        let text = format!(" Arena podiums: {}", places.join(" · "));
        lines.push(Line::styled(truncate(&text, width), theme.text()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_rises_and_falls_with_the_rating() {
        assert_eq!(sparkline(&[1500, 1512, 1530, 1500]), "▁▄█▁");
        assert_eq!(sparkline(&[1500, 1500]), "▁▁");
        assert_eq!(sparkline(&[]), "");
    }
}
