//! The engines' league in the store: [`LeagueBackend`], the rows each database keeps: every
//! finished war game of the server's own between two AI seats, once, by its game id, in the
//! order it was counted (the end of a game counts it in the same transaction, see
//! `backend::end_game`).

use noughts_protocol::{GameId, Mark, PlayerId, Variant};

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

/// A variant's league as the store knows it: games counted since a reader's last, and the war
/// game being played.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeagueNews {
    /// The league games after the reader's last, in order (at most [`LEAGUE_PAGE`]).
    pub(crate) games: Vec<LeagueGame>,
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
    /// Counts a league game (its `n` is the database's to give); false, changing nothing, if
    /// that game is counted already.
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<bool, StoreError>;
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
}
