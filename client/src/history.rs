//! A player's finished games: how one reads from that player's side, and `noughts history`, which
//! prints them as text.

use std::io::Write;

use anyhow::bail;
use noughts_protocol::{
    ClientMessage, GameId, GameKind, GameSummary, History, Mark, PlayerId, Profile, RecordSeat,
    ServerMessage,
};

use crate::names::shown;
use crate::net::Link;
use crate::plain::result_text;
use crate::replay::seat_text;

/// The side `player` played in a game, if they played in it.
pub fn side_of(game: &GameSummary, player: PlayerId) -> Option<Mark> {
    if game.x.player == Some(player) {
        Some(Mark::X)
    } else if game.o.player == Some(player) {
        Some(Mark::O)
    } else {
        None
    }
}

/// "won", "lost", "drew" from `side`'s point of view; "—" for a game the server aborted.
pub fn outcome_word(game: &GameSummary, side: Option<Mark>) -> &'static str {
    match (game.result.winner, side) {
        (None, _) if game.result.reason == noughts_protocol::EndReason::Aborted => "—",
        (None, _) => "drew",
        (Some(w), Some(s)) if w == s => "won",
        (Some(_), Some(_)) => "lost",
        (Some(Mark::X), None) => "X won",
        (Some(Mark::O), None) => "O won",
    }
}

/// A seat's name as lists show it: people by name, AI seats by level.
pub fn seat_name(seat: &RecordSeat) -> String {
    match seat.level {
        Some(level) => format!("{level} AI"),
        None => shown(&seat.name, seat.guest, seat.bot),
    }
}

/// A time in milliseconds since the Unix epoch as `YYYY-MM-DD HH:MM` (UTC).
pub fn date_time(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic Gregorian calendar (Howard
/// Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// What `noughts history` (or `noughts profile`) asks for.
#[derive(Debug, Clone)]
pub struct Query {
    /// Whose games; `None` for the player this client is.
    pub player: Option<PlayerId>,
    /// Only games older than this one.
    pub before: Option<GameId>,
    /// How many games.
    pub limit: u32,
    /// Whose games, by an account's username (`noughts profile`): the games are asked for once
    /// the profile has named the player.
    pub username: Option<String>,
}

/// [`run`], printing to the standard output.
pub async fn print(link: Link, query: Query) -> anyhow::Result<()> {
    run(link, query, &mut std::io::stdout().lock()).await
}

/// Asks for a player's profile and games, and prints them to `out`.
pub async fn run(mut link: Link, query: Query, out: &mut impl Write) -> anyhow::Result<()> {
    let mut profile: Option<Profile> = None;
    let mut games: Option<(Vec<GameSummary>, bool)> = None;
    loop {
        let message = link.next_message().await?;
        match message {
            ServerMessage::Welcome { .. } => {
                link.send(ClientMessage::Profile {
                    player: query.player,
                    username: query.username.clone(),
                });
                if query.username.is_none() {
                    link.send(ClientMessage::History(History {
                        player: query.player,
                        before: query.before,
                        limit: Some(query.limit),
                    }));
                }
            }
            ServerMessage::Profile(reply) => {
                if query.username.is_some() && profile.is_none() {
                    link.send(ClientMessage::History(History {
                        player: Some(reply.player),
                        before: query.before,
                        limit: Some(query.limit),
                    }));
                }
                profile = Some(*reply);
            }
            ServerMessage::History {
                games: list, more, ..
            } => games = Some((list, more)),
            ServerMessage::Error { code, message } => {
                bail!("the server refused: {} ({code})", message)
            }
            _ => {}
        }
        if let (Some(profile), Some((games, more))) = (&profile, &games) {
            write_history(profile, games, *more, out)?;
            return Ok(());
        }
    }
}

/// The text of `noughts history`: who, their ratings, then one line per game.
pub fn write_history(
    profile: &Profile,
    games: &[GameSummary],
    more: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(out, "{}", shown(&profile.name, profile.guest, profile.bot))?;
    for stats in profile.variants.iter().filter(|s| s.games > 0) {
        writeln!(
            out,
            "  {:<8} rating {} ±{} ({} rated), {} games: {} won, {} drawn, {} lost",
            stats.variant.name(),
            stats.rating,
            stats.deviation,
            stats.rated_games,
            stats.games,
            stats.wins,
            stats.draws,
            stats.losses
        )?;
    }
    if games.is_empty() {
        writeln!(out, "no finished games")?;
        return Ok(());
    }
    for game in games {
        let side = side_of(game, profile.player);
        let kind = match game.kind {
            GameKind::Human if game.rated => "rated",
            GameKind::Human => "casual",
            GameKind::Ai => "vs AI",
            GameKind::War => "AI war",
        };
        writeln!(
            out,
            "game {}  {}  {:<7} {:<6} {:<4}  X {} vs O {}: {}, {} moves",
            game.game,
            date_time(game.ended_ms),
            game.variant.name(),
            kind,
            outcome_word(game, side),
            seat_text(&game.x),
            seat_text(&game.o),
            result_text(game.variant, &game.result),
            game.moves
        )?;
    }
    if more {
        let last = games.last().map_or(0, |g| g.game.0);
        writeln!(out, "older games: noughts history --before {last}")?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(date_time(0), "1970-01-01 00:00");
        assert_eq!(date_time(1_767_225_671_000), "2026-01-01 00:01");
        assert_eq!(date_time(951_825_600_000), "2000-02-29 12:00");
    }
}
