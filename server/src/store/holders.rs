//! What a cluster's nodes ask of the store they share, beside the records: which node may write
//! a game (its fencing epoch), and the ids no two nodes give. PostgreSQL counts both, so a Redis
//! that restarts empty or stalls can cost time but never a second writer of a game or an id
//! given twice.

use std::ops::Range;

use noughts_protocol::{GameId, Variant};

use super::queue::Store;
use super::records::StoreError;

impl Store {
    /// Takes `game` for this node: its fencing epoch in the store is raised, so that any other
    /// node's writes of the game (under an older epoch) are refused from now on. With `held`, this node's own epoch is only confirmed (its lease was
    /// taken again after Redis forgot it), unless another node has raised it since. `None` if
    /// the game is not live (it ended, or is not stored), or is another node's.
    pub(crate) async fn claim(
        &self,
        game: GameId,
        held: Option<u64>,
    ) -> Result<Option<u64>, StoreError> {
        self.write_alone("claim game", move |db| db.claim(game, held))
            .await
    }

    /// The next `size` ids of `kind` (`player`, `game`, `seek`), all above `floor` and above
    /// every id of that kind taken before from this store.
    pub(crate) async fn reserve_ids(
        &self,
        kind: &'static str,
        size: u64,
        floor: u64,
    ) -> Result<Range<u64>, StoreError> {
        let last = self
            .write_alone("reserve ids", move |db| db.reserve_ids(kind, size, floor))
            .await?;
        Ok(last + 1 - size..last + 1)
    }
}

impl Store {
    /// The server's own war games of `variant` still live, newest first: what a cluster's war
    /// slot holder carries on when Redis has forgotten which one it noted.
    pub(crate) async fn live_war_games(&self, variant: Variant) -> Result<Vec<GameId>, StoreError> {
        self.read(move |db| db.live_war_games(variant)).await
    }
}
