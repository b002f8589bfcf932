//! The moderation log as the store keeps it (each fact a [`ModerationEntry`]): one table,
//! `moderation_log`, that every moderation fact is appended to (a player muting, blocking or reporting another; an operator banning,
//! muting, reserving a name or ending a game, with who, when and why: the audit), and read back
//! in order by id, so that every node folds the same facts into the same state.

use noughts_protocol::{GameId, Mark, PlayerId};

use super::queue::Store;
use super::records::{MODERATION_PAGE, ModerationEntry, StoreError};
use super::rows::GameRow;
use crate::rules::sitter::Sitter;

impl Store {
    /// Appends `entry` to the moderation log; returns its id once it is durable.
    pub(crate) async fn add_moderation(&self, entry: ModerationEntry) -> Result<u64, StoreError> {
        self.write("moderation", move |db| db.add_moderation(&entry))
            .await
    }

    /// The log's entries with an id above `after`, oldest first, at most [`MODERATION_PAGE`].
    pub(crate) async fn moderation_since(
        &self,
        after: u64,
    ) -> Result<Vec<ModerationEntry>, StoreError> {
        self.read(move |db| db.moderation_since(after, MODERATION_PAGE))
            .await
    }

    /// Whether the store has a game with id `game`, live or finished.
    pub(crate) async fn has_game(&self, game: GameId) -> Result<bool, StoreError> {
        self.read(move |db| db.game(game).map(|row| row.is_some()))
            .await
    }

    /// The name player `player` was last known by, if the store knows them.
    pub(crate) async fn player_name(&self, player: PlayerId) -> Result<Option<String>, StoreError> {
        self.read(move |db| db.player_row(player).map(|row| row.map(|row| row.name)))
            .await
    }
}

impl Store {
    /// A game as an operator reads it beside a report: its board, seats and state; `None` if the
    /// store has no such game.
    pub(crate) async fn game_summary(&self, game: GameId) -> Result<Option<String>, StoreError> {
        self.read(move |db| Ok(db.game(game)?.map(|row| describe(&row))))
            .await
    }
}

/// "classic, player 3 (X) v AI (perfect) (O), X won (resign)".
fn describe(row: &GameRow) -> String {
    let seat = |sitter: &Sitter| match sitter {
        Sitter::Human(player) => format!("player {}", player.0),
        Sitter::Ai(level) => format!("AI ({level})"),
    };
    let [x, o] = &row.start.seats;
    let state = match &row.result {
        None => "live".to_owned(),
        Some(result) => {
            let reason = serde_json::to_string(&result.reason).unwrap_or_default();
            match result.winner {
                Some(mark) => format!("{} won ({})", mark_name(mark), reason.trim_matches('"')),
                None => format!("no winner ({})", reason.trim_matches('"')),
            }
        }
    };
    format!(
        "{}, {} (X) v {} (O), {state}",
        row.start.variant,
        seat(x),
        seat(o)
    )
}

fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::X => "X",
        Mark::O => "O",
    }
}
