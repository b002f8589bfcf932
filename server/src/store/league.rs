//! The engines' league in the store: [`LeagueBackend`], the rows each database keeps: every
//! finished war game of the server's own between two AI seats, once, by its game id, in the
//! order it was counted, and the running table those games make, each entrant's line (the end
//! of a game counts it and updates the table in the same transaction, see `league_table.rs`).

use noughts_protocol::{GameId, Mark, PlayerId, Variant};

use crate::rules::league_table::Row;
use crate::rules::rating::Glicko;
use crate::rules::sitter::Sitter;

use super::records::StoreError;

/// How many league games one read brings back at most; a reader catching up reads again.
pub(crate) const LEAGUE_PAGE: u32 = 1_000;

/// One counted game of the league.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeagueGame {
    /// Its place among its variant's league games, counted from 1 across all variants: a reader
    /// asks for the games after the last it has.
    pub(crate) n: u64,
    pub(crate) game: GameId,
    pub(crate) variant: Variant,
    /// X's and O's entrants, as the league names them (an AI level's name, or `bot:` and a
    /// bot account's player id).
    pub(crate) x: String,
    pub(crate) o: String,
    /// `None` for a draw.
    pub(crate) winner: Option<Mark>,
    pub(crate) ended_ms: u64,
}

/// What a variant's running table stands on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LeagueState {
    /// The games of one rating period (one round of the levels' round robin), as the league
    /// last said; 0 until it has (no period closes).
    pub(crate) round_games: u32,
    /// League games counted on the variant.
    pub(crate) counted: u32,
    /// The `n` of the game that closed the last rating period (0 before the first): the games
    /// after it are the round under way.
    pub(crate) rated_through: u64,
    /// The last counted game's `n` (0 before the first): a reader with that one has the table.
    pub(crate) last_n: u64,
    /// The last counted game's X and O, as the league names them.
    pub(crate) last_pair: Option<(String, String)>,
}

/// One entrant's line of a variant's running table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeagueLine {
    /// As the league names it (see [`LeagueGame::x`]).
    pub(crate) entrant: String,
    /// Its results, and its rating and deviation as the last rating period left them.
    pub(crate) row: Row,
    /// The Glicko-2 volatility the row does not show.
    pub(crate) volatility: f64,
}

impl LeagueLine {
    /// `entrant`'s line before its first game.
    pub(crate) fn new(entrant: &str) -> LeagueLine {
        LeagueLine {
            entrant: entrant.to_owned(),
            row: Row::NEW,
            volatility: crate::rules::rating::NEW.volatility,
        }
    }

    /// Its rating, deviation and volatility.
    pub(crate) fn glicko(&self) -> Glicko {
        Glicko {
            rating: self.row.rating,
            deviation: self.row.deviation,
            volatility: self.volatility,
        }
    }
}

/// A variant's running table as kept: what it stands on, and every entrant's line (by entrant).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KeptTable {
    pub(crate) state: LeagueState,
    pub(crate) lines: Vec<LeagueLine>,
}

/// A variant's league as the store knows it: its table if it changed since a reader's last
/// read, and the war game being played.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeagueNews {
    /// The running table, unless the last game it counted is the reader's last.
    pub(crate) table: Option<KeptTable>,
    /// The variant's war game of the server's own being played, with X's and O's seats (a
    /// bot's by its player id).
    pub(crate) playing: Option<(GameId, [Sitter; 2])>,
    /// The bots that have entered the variant's league, those that left since included, in
    /// the order they first entered.
    pub(crate) bots: Vec<LeagueBot>,
}

/// A bot account that has entered a variant's league.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeagueBot {
    pub(crate) player: PlayerId,
    /// Its name when it last entered.
    pub(crate) name: String,
    /// When it first entered: the entrants' order.
    pub(crate) entered_ms: u64,
    /// Whether it is in the league now (false once it has left).
    pub(crate) entered: bool,
}

/// What one database keeps of the league. Every write runs inside the store's transaction.
pub(super) trait LeagueBackend {
    /// Makes ends of `variant`'s league games counted at once wait for each other until the
    /// transaction ends, from before the game is given its `n` (so the table takes the games
    /// in the order of their `n`, and an end never reads the table another has not written
    /// yet, even before the table's first row exists). On PostgreSQL, where several nodes write;
    /// SQLite has one writer.
    fn lock_league(&mut self, variant: Variant) -> Result<(), StoreError> {
        let _ = variant;
        Ok(())
    }
    /// Counts a league game and returns the `n` the database gave it; `None`, changing
    /// nothing, if that game is counted already.
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<Option<u64>, StoreError>;
    /// At most `limit` league games of `variant` with `n` above `after`, in order.
    fn league_games(
        &mut self,
        variant: Variant,
        after: u64,
        limit: u32,
    ) -> Result<Vec<LeagueGame>, StoreError>;
    /// Enters `bot.player` into `variant`'s league (again, keeping its first `entered_ms`, if
    /// it left); false, changing nothing, if it is in already.
    fn enter_league(&mut self, variant: Variant, bot: &LeagueBot) -> Result<bool, StoreError>;
    /// Takes `player` out of `variant`'s league; false if it was not in.
    fn leave_league(&mut self, variant: Variant, player: PlayerId) -> Result<bool, StoreError>;
    /// `variant`'s bots, those that left included, by `entered_ms` then player id.
    fn league_bots(&mut self, variant: Variant) -> Result<Vec<LeagueBot>, StoreError>;
    /// What `variant`'s running table stands on, if it has been kept.
    fn league_state(&mut self, variant: Variant) -> Result<Option<LeagueState>, StoreError>;
    fn save_league_state(
        &mut self,
        variant: Variant,
        state: &LeagueState,
    ) -> Result<(), StoreError>;
    /// `variant`'s lines, by entrant.
    fn league_lines(&mut self, variant: Variant) -> Result<Vec<LeagueLine>, StoreError>;
    fn league_line(
        &mut self,
        variant: Variant,
        entrant: &str,
    ) -> Result<Option<LeagueLine>, StoreError>;
    /// Writes a line, new or changed.
    fn save_league_line(&mut self, variant: Variant, line: &LeagueLine) -> Result<(), StoreError>;
    /// Takes every line of `variant` off (before the table is built anew).
    fn clear_league_lines(&mut self, variant: Variant) -> Result<(), StoreError>;
}
