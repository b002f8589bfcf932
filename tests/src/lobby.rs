//! The lobby as a follower knows it: the snapshot with every `lobby_update` applied, and a wait
//! for the state a test expects rather than for one frame.

use std::collections::BTreeMap;

use noughts_protocol::{
    ArenaInfo, GameId, GameInfo, RoomInfo, SeekId, SeekInfo, ServerMessage, Totals,
};

use crate::{Client, WAIT};

/// What a lobby follower holds.
#[derive(Debug, Clone, Default)]
pub struct LobbyView {
    pub seeks: BTreeMap<SeekId, SeekInfo>,
    pub seeks_total: u32,
    pub rooms: BTreeMap<String, RoomInfo>,
    pub rooms_total: u32,
    /// The games shown: the war games and the featured games.
    pub games: BTreeMap<GameId, GameInfo>,
    pub totals: Totals,
    /// The arenas listed.
    pub arenas: Vec<ArenaInfo>,
    /// `lobby_update` frames applied.
    pub updates: usize,
}

impl LobbyView {
    /// Applies a lobby message; false for any other message.
    pub fn apply(&mut self, message: &ServerMessage) -> bool {
        match message {
            ServerMessage::Lobby {
                seeks,
                seeks_total,
                rooms,
                rooms_total,
                games,
                totals,
                arenas,
            } => {
                *self = LobbyView {
                    seeks: seeks.iter().map(|s| (s.seek, s.clone())).collect(),
                    seeks_total: *seeks_total,
                    rooms: rooms.iter().map(|r| (r.code.clone(), r.clone())).collect(),
                    rooms_total: *rooms_total,
                    games: games.iter().map(|g| (g.game, g.clone())).collect(),
                    totals: *totals,
                    arenas: arenas.clone(),
                    updates: self.updates,
                };
            }
            ServerMessage::LobbyUpdate(update) => {
                self.updates += 1;
                for seek in &update.seeks_removed {
                    self.seeks.remove(seek);
                }
                for code in &update.rooms_removed {
                    self.rooms.remove(code);
                }
                for game in &update.games_removed {
                    self.games.remove(game);
                }
                self.seeks
                    .extend(update.seeks.iter().map(|s| (s.seek, s.clone())));
                self.rooms
                    .extend(update.rooms.iter().map(|r| (r.code.clone(), r.clone())));
                self.games
                    .extend(update.games.iter().map(|g| (g.game, g.clone())));
                self.seeks_total = update.seeks_total.unwrap_or(self.seeks_total);
                self.rooms_total = update.rooms_total.unwrap_or(self.rooms_total);
                self.totals = update.totals.unwrap_or(self.totals);
                if let Some(arenas) = &update.arenas {
                    self.arenas.clone_from(arenas);
                }
            }
            _ => return false,
        }
        true
    }
}

impl Client {
    /// Subscribes to the lobby with request `id`: the snapshot, as a view.
    pub async fn follow_lobby(&mut self, id: u64) -> LobbyView {
        let reply = self
            .request(id, noughts_protocol::ClientMessage::SubscribeLobby)
            .await;
        let mut view = LobbyView::default();
        assert!(view.apply(&reply), "{}: a lobby, got {reply:?}", self.name);
        view
    }

    /// Reads frames, applying the lobby's to `view`, until `what` holds of it (checked first
    /// before reading). Frames that are not the lobby's are dropped.
    pub async fn lobby_until(&mut self, view: &mut LobbyView, what: impl Fn(&LobbyView) -> bool) {
        let name = self.name.clone();
        tokio::time::timeout(WAIT, async {
            while !what(view) {
                let frame = self.next().await;
                view.apply(&frame.message);
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{name}: the lobby never came to the awaited state: {view:?}"));
    }
}
