//! A game's people as its actor reaches them: watchers arriving and leaving, players attaching and
//! going away, and every update sent, serialised once, to both seats and every watcher.

use std::sync::Arc;

use tracing::error;

use noughts_protocol::{GameInfo, Mark, PlayerId, ServerMessage};

use super::actor::{Game, now};
use super::rules::Update;
use super::seat::{Human, Watcher, index};
use crate::game_handle::Requester;
use crate::outbound::{Frame, Outbound, fan_out, frame, with_id};
use crate::session::Session;
use crate::sitter::Sitter;
use crate::store::SEQ_RESERVE;

impl Game {
    pub(super) fn on_watch(&mut self, session: Arc<Session>, from: Requester) {
        if let Some(mark) = self.rules.mark_of(from.player) {
            // Players are not watchers: they already get every update.
            session.set_watching(self.rules.id(), false);
            from.out
                .send(self.snapshot(Some(mark), from.id.clone(), now()));
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
        let player = from.player;
        let out = from.out.clone();
        self.watchers.insert(
            player,
            Watcher {
                session,
                out: out.clone(),
            },
        );
        self.rules.watchers_changed(self.watchers.len());
        if !out.send(self.snapshot(None, from.id, now())) {
            self.watchers.remove(&player);
            self.rules.watchers_changed(self.watchers.len());
        }
    }

    pub(super) async fn on_attach(&mut self, player: PlayerId, out: Outbound) {
        let Some(mark) = self.rules.mark_of(player) else {
            return;
        };
        let Sitter::Human(human) = &mut self.seats[index(mark)] else {
            return;
        };
        human.out = Some(out.clone());
        let now = now();
        let returned = self.rules.seat_returned(mark, now);
        if let Some(update) = returned.update {
            self.broadcast(update, None).await;
            self.list();
        }
        if returned.snapshot && !out.send(self.snapshot(Some(mark), None, now)) {
            self.dropped.push(mark);
        }
    }

    /// A seat's player has gone: the clock stops, the grace runs, everyone is told.
    pub(super) async fn seat_away(&mut self, mark: Mark) {
        if let Sitter::Human(human) = &mut self.seats[index(mark)] {
            human.out = None;
        }
        if let Some(update) = self.rules.seat_left(mark, now()) {
            self.broadcast(update, None).await;
            self.list();
        }
    }

    /// Sends an update to the players and every watcher; the requester's copy echoes its id.
    pub(super) async fn broadcast(&mut self, update: Update, from: Option<Requester>) {
        self.cover_seq().await;
        let skip = update.skip;
        match from {
            Some(from) if update.reply && from.id.is_some() => {
                let shared = frame(None, update.message);
                let own = with_id(&shared, from.id.as_ref());
                let seat = self.rules.mark_of(from.player);
                if !from.out.send(own)
                    && let Some(mark) = seat
                {
                    self.dropped.push(mark);
                }
                let skip_seat = seat.or(skip);
                let skip_watcher = seat.is_none().then_some(from.player);
                self.send_all(&shared, skip_seat, skip_watcher).await;
            }
            _ => {
                self.send_all(&frame(None, update.message), skip, None)
                    .await
            }
        }
    }

    /// Sends one frame to the seats and watchers, except the ones named.
    pub(super) async fn send_all(
        &mut self,
        frame: &Frame,
        skip_seat: Option<Mark>,
        skip_watcher: Option<PlayerId>,
    ) {
        for mark in [Mark::X, Mark::O] {
            if Some(mark) == skip_seat {
                continue;
            }
            if let Sitter::Human(Human { out: Some(out), .. }) = &self.seats[index(mark)]
                && !out.send(frame.clone())
            {
                self.dropped.push(mark);
            }
        }
        // Collected first: an iterator adapter's closures held across the fan-out's awaits would
        // keep the task from being `Send`.
        let watchers: Vec<(PlayerId, &Outbound)> = self
            .watchers
            .iter()
            .filter(|(player, _)| Some(**player) != skip_watcher)
            .map(|(player, watcher)| (*player, &watcher.out))
            .collect();
        let gone = fan_out(watchers, frame).await;
        if !gone.is_empty() {
            for player in gone {
                self.watchers.remove(&player);
            }
            self.rules.watchers_changed(self.watchers.len());
        }
    }

    /// The full snapshot for one recipient.
    pub(super) fn snapshot(
        &self,
        you: Option<Mark>,
        id: Option<noughts_protocol::RequestId>,
        now: std::time::Instant,
    ) -> Frame {
        let variant = self.rules.board().variant();
        let seats = [self.seats[0].info(variant), self.seats[1].info(variant)];
        let state = self.rules.state(you, seats, now);
        frame(id, ServerMessage::GameState(Box::new(state)))
    }

    /// Updates the game's lobby entry while it is live and listed.
    pub(super) fn list(&self) {
        if !self.listed || self.rules.is_over() {
            return;
        }
        let variant = self.rules.board().variant();
        self.shared.lobby.update_game(GameInfo {
            game: self.rules.id(),
            variant,
            kind: self.rules.kind(),
            x: self.seats[0].info(variant),
            o: self.seats[1].info(variant),
            moves: u32::try_from(self.rules.moves().len()).unwrap_or(u32::MAX),
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
        match self.shared.store.reserve_seq(self.rules.id(), mark).await {
            Ok(()) => self.stored_seq = mark,
            Err(err) => error!(cause = %err, "the game's seq could not be stored"),
        }
    }
}
