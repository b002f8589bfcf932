//! The league's running table in the store, so that a node starting reads the table, not every
//! game ever counted: a counted game adds to its two entrants' lines in the transaction that
//! stores its end, and the game that ends a round closes its rating period there too (the
//! round's games read back, at most a round of them). The table is built from the counted games
//! once: on the first opening after the migration that added it (with the league of every AI
//! level's round), and again only if a league's round differs from the one it was kept with
//! (the operator chose other levels). Either way it is [`Table`]'s arithmetic, so the ratings are
//! those of the whole table built from the games in order.

use std::collections::HashMap;

use noughts_protocol::{Level, Mark, Variant};

use super::league::{KeptTable, LEAGUE_PAGE, LeagueBackend, LeagueGame, LeagueLine, LeagueState};
use super::records::StoreError;
use crate::rules::league_table::{Finish, Pairing, Table};

/// The games of a round of the league of every AI level (the server's default): the round the
/// migration builds the table with.
pub(super) const DEFAULT_ROUND: u32 = (Level::ALL.len() * (Level::ALL.len() - 1)) as u32;

/// Counts `game` (which has just ended) in the league and in its variant's running table;
/// nothing if it is counted already. Inside the end's transaction.
pub(super) fn count(
    db: &mut (impl LeagueBackend + ?Sized),
    game: &LeagueGame,
) -> Result<(), StoreError> {
    db.lock_league(game.variant)?;
    let Some(n) = db.add_league_game(game)? else {
        return Ok(());
    };
    let variant = game.variant;
    let mut state = db.league_state(variant)?.unwrap_or_default();
    state.counted += 1;
    state.last_n = n;
    state.last_pair = Some((game.x.clone(), game.o.clone()));
    // An entrant playing itself (a pinned pairing of one level) counts in neither line, as in
    // the table.
    if game.x != game.o {
        let [x, o] = finish(game.winner).scores();
        for (entrant, score) in [(&game.x, x), (&game.o, o)] {
            let mut line = db
                .league_line(variant, entrant)?
                .unwrap_or_else(|| LeagueLine::new(entrant));
            line.row.count(score);
            db.save_league_line(variant, &line)?;
        }
    }
    if state.round_games > 0 && state.counted.is_multiple_of(state.round_games) {
        close_round(db, variant, &mut state)?;
    }
    db.save_league_state(variant, &state)
}

/// Closes the round the last counted game ended: every entrant rated from its games since the
/// last period closed.
fn close_round(
    db: &mut (impl LeagueBackend + ?Sized),
    variant: Variant,
    state: &mut LeagueState,
) -> Result<(), StoreError> {
    let lines = db.league_lines(variant)?;
    let place: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| (line.entrant.as_str(), i))
        .collect();
    let mut table = Table::resume(lines.iter().map(|line| (line.row, line.glicko())));
    let mut after = state.rated_through;
    loop {
        let games = db.league_games(variant, after, LEAGUE_PAGE)?;
        for game in &games {
            after = game.n;
            if let (Some(&x), Some(&o)) = (place.get(game.x.as_str()), place.get(game.o.as_str())) {
                table.pend(Pairing { x, o }, finish(game.winner));
            }
        }
        if games.len() < LEAGUE_PAGE as usize {
            break;
        }
    }
    table.close_round();
    for (line, rated) in lines.iter().zip(table.ratings()) {
        let kept = LeagueLine {
            entrant: line.entrant.clone(),
            row: crate::rules::league_table::Row {
                rating: rated.rating,
                deviation: rated.deviation,
                ..line.row
            },
            volatility: rated.volatility,
        };
        if kept != *line {
            db.save_league_line(variant, &kept)?;
        }
    }
    state.rated_through = state.last_n;
    Ok(())
}

/// Makes `variant`'s table the one of a league whose rating period is `round_games` games:
/// built anew from the counted games if it was kept with another (or none). True if it was.
pub(super) fn settle(
    db: &mut (impl LeagueBackend + ?Sized),
    variant: Variant,
    round_games: u32,
) -> Result<bool, StoreError> {
    if db
        .league_state(variant)?
        .is_some_and(|state| state.round_games == round_games)
    {
        return Ok(false);
    }
    let built = build(db, variant, round_games)?;
    db.clear_league_lines(variant)?;
    for line in &built.lines {
        db.save_league_line(variant, line)?;
    }
    db.save_league_state(variant, &built.state)?;
    Ok(true)
}

/// Builds the table of each variant with counted games but no table kept (a database from
/// before the table was kept), as the league of every AI level keeps it. Run once the database
/// is opened; it finds nothing to do after the first time.
pub(super) fn fill(db: &mut (impl LeagueBackend + ?Sized)) -> Result<(), StoreError> {
    for variant in Variant::ALL {
        if db.league_games(variant, 0, 1)?.is_empty() {
            continue;
        }
        let unkept = db
            .league_state(variant)?
            .is_none_or(|state| state.round_games == 0);
        if unkept {
            settle(db, variant, DEFAULT_ROUND)?;
        }
    }
    Ok(())
}

/// `variant`'s table built from every counted game, in the order counted, a rating period
/// closing every `round_games` games.
pub(super) fn build(
    db: &mut (impl LeagueBackend + ?Sized),
    variant: Variant,
    round_games: u32,
) -> Result<KeptTable, StoreError> {
    let mut state = LeagueState {
        round_games,
        ..LeagueState::default()
    };
    let mut entrants: Vec<String> = Vec::new();
    let mut table = Table::new(0);
    let mut place =
        |entrant: &str, table: &mut Table| match entrants.iter().position(|e| e == entrant) {
            Some(at) => at,
            None => {
                entrants.push(entrant.to_owned());
                table.add_entrant();
                entrants.len() - 1
            }
        };
    loop {
        let games = db.league_games(variant, state.last_n, LEAGUE_PAGE)?;
        for game in &games {
            state.counted += 1;
            state.last_n = game.n;
            state.last_pair = Some((game.x.clone(), game.o.clone()));
            if game.x != game.o {
                let x = place(&game.x, &mut table);
                let o = place(&game.o, &mut table);
                table.record(Pairing { x, o }, finish(game.winner));
            }
            if round_games > 0 && state.counted.is_multiple_of(round_games) {
                table.close_round();
                state.rated_through = game.n;
            }
        }
        if games.len() < LEAGUE_PAGE as usize {
            break;
        }
    }
    Ok(KeptTable {
        state,
        lines: lines_of(entrants, &table),
    })
}

/// `table`'s lines, each under its entrant (in the table's order), ordered by entrant as the
/// store keeps them.
pub(super) fn lines_of(entrants: Vec<String>, table: &Table) -> Vec<LeagueLine> {
    let mut lines: Vec<LeagueLine> = entrants
        .into_iter()
        .zip(table.rows().iter().zip(table.ratings()))
        .map(|(entrant, (row, rated))| LeagueLine {
            entrant,
            row: *row,
            volatility: rated.volatility,
        })
        .collect();
    lines.sort_by(|a, b| a.entrant.cmp(&b.entrant));
    lines
}

/// How a game that `winner` won (`None`: drawn) finished.
fn finish(winner: Option<Mark>) -> Finish {
    match winner {
        Some(Mark::X) => Finish::XWon,
        Some(Mark::O) => Finish::OWon,
        None => Finish::Drawn,
    }
}
