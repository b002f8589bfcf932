//! The actor's dealings with its people: watchers arriving and leaving, players attaching and
//! going away, and every update serialised once and handed to the game's `Audience`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameInfo, Mark, PlayerId, ServerMessage};
use tracing::error;

use super::actor::{Game, now};
use super::seat::{Watcher, index};
use crate::net::outbound::{ConnId, Frame, Outbound, frame, with_id};
use crate::registry::games::Requester;
use crate::rules::Update;
use crate::rules::sitter::Sitter;
use crate::session::Session;
use crate::store::SEQ_RESERVE;

impl Game {
    pub(super) fn on_watch(&mut self, session: Arc<Session>, from: Requester) {
        if let Some(mark) = self.rules.mark_of(from.player) {
            // Players are not watchers: they already get every update.
            session.set_watching(self.rules.id(), false);
            from.out
                .send(self.snapshot(Some(mark), None, from.id.clone(), now()));
            return;
        }
        self.add_watcher(session, from);
    }

    /// Adds a watcher and sends them the snapshot; everyone hears of the new count once the batch
    /// settles.
    pub(super) fn add_watcher(&mut self, session: Arc<Session>, from: Requester) {
        // Requests still queued from a connection being closed (one dropped for reading too
        // slowly) must not bring it back, or each would count a watcher come and gone.
        if from.out.is_closed() {
            return;
        }
        let out = from.out.clone();
        let conn = out.conn;
        let watcher = Watcher {
            session,
            out: out.clone(),
        };
        self.audience.add_watcher(conn, watcher);
        self.watchers_changed();
        if !out.send(self.snapshot(None, Some(from.player), from.id, now())) {
            self.audience.remove_watcher(conn);
            self.watchers_changed();
        }
    }

    pub(super) async fn on_attach(&mut self, player: PlayerId, out: Outbound) {
        let Some(mark) = self.rules.mark_of(player) else {
            return;
        };
        let Sitter::Human(human) = &mut self.audience.seats[index(mark)] else {
            return;
        };
        if human.outs.iter().any(|o| o.conn == out.conn) {
            return;
        }
        human.outs.push(out.clone());
        let now = now();
        let returned = self.rules.seat_returned(mark, now);
        if let Some(update) = returned.update {
            self.broadcast(update, None).await;
            self.list_entry();
        }
        if returned.snapshot && !out.send(self.snapshot(Some(mark), None, None, now)) {
            self.audience.drop_seat(mark, out.conn);
        }
    }

    /// One of a seat's connections has gone; the player is away if it was the last.
    pub(super) async fn seat_gone(&mut self, mark: Mark, conn: ConnId) {
        let Sitter::Human(human) = &mut self.audience.seats[index(mark)] else {
            return;
        };
        let before = human.outs.len();
        human.outs.retain(|out| out.conn != conn);
        if before > 0 && human.outs.is_empty() {
            self.seat_away(mark).await;
        }
    }

    /// A seat's player has gone: the clock stops, the grace runs, everyone is told.
    pub(super) async fn seat_away(&mut self, mark: Mark) {
        if let Sitter::Human(human) = &mut self.audience.seats[index(mark)] {
            human.outs.clear();
        }
        if let Some(update) = self.rules.seat_left(mark, now()) {
            self.broadcast(update, None).await;
            self.list_entry();
        }
    }

    /// The watcher count changed: this node's watchers and the other nodes' recent counts.
    pub(super) fn watchers_changed(&mut self) {
        let fresh = (self.shared.wing.as_ref()).map_or(Duration::ZERO, |wing| wing.lease() * 3);
        let count = self.audience.watcher_count(fresh);
        self.rules.watchers_changed(count);
    }

    /// Node `node` counts `count` watchers of this game; everyone hears of a changed total when
    /// the batch settles.
    pub(super) fn remote_watchers(&mut self, node: String, count: usize) {
        self.audience.count_remote(node, count);
        self.watchers_changed();
    }

    /// Sends an update to the players and every watcher; the requester's copy echoes its id.
    pub(super) async fn broadcast(&mut self, update: Update, from: Option<Requester>) {
        self.cover_seq().await;
        let hidden = self.hidden_from(&update.message);
        let to_seats = [Mark::X, Mark::O].map(|mark| {
            !update.watchers_only
                && update.skip != Some(mark)
                && self
                    .rules
                    .player(mark)
                    .is_none_or(|player| !hidden.contains(&player))
        });
        let reply = update.reply;
        let frame = frame(None, update.message);
        // The requester's copy echoes its id, and its connection gets no other.
        let mut skip_conn = None;
        if let Some(from) = from.filter(|from| reply && from.id.is_some()) {
            let own = with_id(&frame, from.id.as_ref());
            let mark = self.rules.mark_of(from.player);
            self.audience.send_to(mark, &from.out, own);
            skip_conn = Some(from.out.conn);
        }
        self.publish(Some(&frame));
        let audience = &mut self.audience;
        if audience
            .send_all(&frame, to_seats, skip_conn, &hidden)
            .await
        {
            self.watchers_changed();
        }
    }

    /// The players who do not get `message`: those who mute the speaker of a chat line.
    fn hidden_from(&self, message: &ServerMessage) -> HashSet<PlayerId> {
        match message {
            ServerMessage::Chat { line, .. } => line
                .player
                .map(|speaker| self.shared.accounts.moderation.state().muted_by(speaker))
                .unwrap_or_default(),
            _ => HashSet::new(),
        }
    }

    /// The full snapshot for one recipient: a player (`you`), or a watcher (`watcher`, if the
    /// watcher is known), without the chat lines of players they mute.
    pub(super) fn snapshot(
        &self,
        you: Option<Mark>,
        watcher: Option<PlayerId>,
        id: Option<noughts_protocol::RequestId>,
        now: std::time::Instant,
    ) -> Frame {
        let variant = self.rules.board().variant();
        let seats = self.audience.seat_infos(variant);
        let mut state = self.rules.state(you, seats, now);
        let viewer = you.and_then(|mark| self.rules.player(mark)).or(watcher);
        if let Some(viewer) = viewer {
            let moderation = self.shared.accounts.moderation.state();
            state.chat.retain(|line| {
                line.player
                    .is_none_or(|speaker| !moderation.mutes(viewer, speaker))
            });
        }
        frame(id, ServerMessage::GameState(Box::new(state)))
    }

    /// In a cluster, publishes what this listed game's watchers get (`update`, if any) and their
    /// snapshot after it, for the other nodes' watchers.
    fn publish(&self, update: Option<&Frame>) {
        if let Some(wing) = &self.shared.wing
            && self.listed
        {
            let snapshot = self.snapshot(None, None, None, std::time::Instant::now());
            wing.publish(self.rules.id(), snapshot, update.cloned());
        }
    }

    /// Updates the game's lobby entry while it is live and listed, and in a cluster publishes its
    /// watchers' snapshot (for a game that starts or is restored: no update has carried it yet).
    pub(super) fn list(&self) {
        if !self.listed || self.rules.is_over() {
            return;
        }
        self.publish(None);
        self.list_entry();
    }

    /// Updates the game's lobby entry after an update was broadcast: the broadcast published the
    /// watchers' snapshot after it already, and the state has not changed since.
    pub(super) fn list_entry(&self) {
        if !self.listed || self.rules.is_over() {
            return;
        }
        let variant = self.rules.board().variant();
        let [x, o] = self.audience.seat_infos(variant);
        self.shared.lobby.update_game(GameInfo {
            game: self.rules.id(),
            variant,
            kind: self.rules.kind(),
            x,
            o,
            moves: u32::try_from(self.rules.moves().len()).unwrap_or(u32::MAX),
            board: self.rules.board().to_compact(),
            watchers: self.rules.watchers(),
            clock: self.rules.clock_spec(),
            rated: self.rules.rated(),
        });
    }

    /// Before an update goes out with a `seq` beyond the one the store would continue from after
    /// a restart, raises that mark (and waits for the store), so that a restart never gives out
    /// again a `seq` anyone has seen. Finished games are not restored, and need none.
    async fn cover_seq(&mut self) {
        let seq = self.rules.seq();
        if seq <= self.stored_seq || self.rules.is_over() {
            return;
        }
        let mark = seq + SEQ_RESERVE;
        let stored = self.shared.store.reserve_seq(self.rules.id(), mark).await;
        match self.persisted(stored) {
            Ok(()) => self.stored_seq = mark,
            Err(None) => {}
            Err(Some(err)) => error!(cause = %err, "the game's seq could not be stored"),
        }
    }
}
