//! The [`Store`]'s queries of finished play: the leaderboard, a player's history, profile and
//! the games that ended while they were away, a game's record, and the live games.

use noughts_protocol::{GameId, PlayerId, Variant};

use super::backend;
use super::queue::Store;
use super::records::{
    EndedGame, LiveGame, StoreError, StoredGame, StoredMove, StoredProfile, StoredStanding,
    TokenHash, now_ms,
};

impl Store {
    pub(crate) async fn leaderboard(
        &self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<StoredStanding>, StoreError> {
        self.read(move |db| db.leaderboard(variant, offset, limit))
            .await
    }

    /// A player's finished games, newest first, below `before`, as `viewer` may see them (games
    /// from private rooms only if `viewer` played in them); `None` if there is no such player.
    /// The flag says whether older games follow.
    pub(crate) async fn history(
        &self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Option<(Vec<StoredGame>, bool)>, StoreError> {
        self.read(move |db| backend::history(db, player, before, limit, viewer))
            .await
    }

    /// A game's record, if `viewer` may see it: any listed game, and a game from a private room
    /// only to its players (to anyone else it does not exist).
    pub(crate) async fn record(
        &self,
        game: GameId,
        viewer: PlayerId,
    ) -> Result<Option<(StoredGame, Vec<StoredMove>)>, StoreError> {
        self.read(move |db| backend::record(db, game, viewer)).await
    }

    /// The games of `player` that ended since token `presented` was last in use and within
    /// `window_ms` of now, at most `limit`, the earliest ended first.
    pub(crate) async fn ended_while_away(
        &self,
        player: PlayerId,
        presented: TokenHash,
        window_ms: u64,
        limit: u32,
    ) -> Result<Vec<EndedGame>, StoreError> {
        let now = now_ms();
        self.read(move |db| backend::ended_while_away(db, player, presented, now, window_ms, limit))
            .await
    }

    pub(crate) async fn profile(
        &self,
        player: PlayerId,
    ) -> Result<Option<StoredProfile>, StoreError> {
        self.read(move |db| backend::profile(db, player)).await
    }

    /// The games without an end, oldest first: in a cluster, every node's.
    pub(crate) async fn live_ids(&self) -> Result<Vec<GameId>, StoreError> {
        self.read(|db| db.live_ids()).await
    }

    /// The games without an end that `player` plays in.
    pub(crate) async fn live_ids_of(&self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        self.read(move |db| db.live_ids_of(player)).await
    }

    /// A live game as a restart restores it: for a node taking over another's game.
    pub(crate) async fn live_game(&self, game: GameId) -> Result<LiveGame, StoreError> {
        self.read(move |db| backend::live_game(db, game)).await
    }
}
