//! The game actor: the shell around a game's [`Rules`]. It owns its audience, the store writes
//! and the AI tasks; the rules decide, and the actor serialises each update once for both players
//! and every watcher.
//!
//! It is also where the store hears of every change: a move (and an end) is written, and the
//! actor waits for that write to be durable, before anyone is told of it; so what a player has
//! seen is never lost, and a move the store cannot keep is refused rather than half made.
//!
//! Commands are handled in batches: whatever is queued when the actor wakes is drained before it
//! settles, and a batch sends at most one `watchers` update (the rules space them out further).

use std::sync::Arc;
use std::time::Duration;

use noughts_engine::{Budget, Rng, choose_move};
use noughts_protocol::{ErrorCode, GameId, GameKind, Mark, ServerMessage};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};
use tracing::{debug, error, info, warn};

use super::audience::Audience;
use super::seat::{Human, Watcher, index};
use super::setup::{OnEnd, Setup, Starter};
use crate::error::Refusal;
use crate::metrics::GaugeShare;
use crate::registry::games::{Command, Requester};
use crate::rules::sitter::Sitter;
use crate::rules::{Decision, Due, PendingMove, Rematch, Rules, Table};
use crate::session::Session;
use crate::shared::Shared;
use crate::store::{ArenaHold, GameStart, LiveGame, SEQ_RESERVE, StoreError, StoredMove, now_ms};

/// Commands handled before the actor settles (sends a pending `watchers` update, handles dropped
/// connections) and looks at its timers again.
const BATCH: usize = 256;

/// The time the rules see.
pub(super) fn now() -> std::time::Instant {
    Instant::now().into_std()
}

/// One game's shell, owned by its task.
#[derive(Debug)]
pub(crate) struct Game {
    /// The registry, lobby and config, to list, rematch and close.
    pub(super) shared: Arc<Shared>,
    /// The board, moves, `seq`, clocks, result, presence, chat, rematch offer, watcher count.
    pub(super) rules: Rules,
    /// Listed in the lobby while live.
    pub(super) listed: bool,
    /// The latest `seq` handed to the store, which keeps it so a restored game goes on from it.
    pub(super) stored_seq: u64,
    /// When the game started, in milliseconds since the Unix epoch; moves are timed from it.
    pub(super) started_ms: u64,
    /// Both seats' connections and every watcher, and what the sending to them leaves behind.
    pub(super) audience: Audience,
    /// Whether an AI search for the current position is under way.
    pub(super) thinking: bool,
    /// Set when this node may no longer serve the game: the store refused a write (another
    /// node has taken it over), or its lease lapsed or was lost (see `pause`). The game stops
    /// here at once; its people find it where it is taken over.
    pub(super) fenced: bool,
    /// Takebacks so far: an AI move chosen before the latest is dropped.
    pub(super) takebacks: u32,
    /// Least time per AI move.
    pub(super) pace: Duration,
    /// Search budget per AI move.
    pub(super) budget: Budget,
    /// How the AI tasks hand their move back; weak, so the registry alone keeps the game alive.
    pub(super) commands: mpsc::WeakSender<Command>,
    /// Told when the game ends (war-game keeper, per-player limits).
    pub(super) on_end: Option<OnEnd>,
    /// The first snapshot's audience: the requester (reply id) and the first watcher.
    pub(super) opening: Option<Opening>,
    /// A new game's record, stored before anyone is told of the game (so its id is never given
    /// out twice, even across a crash); absent for a restored game.
    pub(super) start: Option<(GameStart, Option<ArenaHold>)>,
    /// Seats found without any connection when the game opened; marked away once it has.
    pub(super) away: Vec<Mark>,
    /// Starts the rematch.
    pub(super) starter: Starter,
}

/// Who gets the first snapshots besides the seats: the requester (its reply echoes the request id)
/// and a first watcher.
type Opening = (Option<Requester>, Option<(Arc<Session>, Requester)>);

/// What the game does after handling something.
enum Flow {
    Continue,
    Close,
}

impl Game {
    pub(crate) fn new(
        shared: Arc<Shared>,
        id: GameId,
        commands: mpsc::WeakSender<Command>,
        setup: Setup,
        started_ms: u64,
        starter: Starter,
    ) -> Game {
        let seats = setup.seats.clone().map(|seat| {
            seat.map(|session| {
                let outs = session.join_game(id);
                Human::seated(session, outs)
            })
        });
        let connected =
            [0, 1].map(|i| !matches!(&seats[i], Sitter::Human(human) if human.outs.is_empty()));
        let rules = Rules::new(Self::table(&shared, id, &setup, &seats), connected);
        Game::around(shared, rules, commands, setup, starter, seats, started_ms)
    }

    /// How the rules see a game set up so.
    fn table(shared: &Shared, id: GameId, setup: &Setup, seats: &[Sitter<Human>; 2]) -> Table {
        let config = &shared.config;
        Table {
            id,
            variant: setup.variant,
            kind: setup.kind,
            seats: [seats[0].sitter(), seats[1].sitter()],
            clock: setup.clock,
            rated: setup.rated,
            rematch_of: setup.rematch_of,
            grace: config.grace,
            claim_after: config.claim_after,
            linger: match setup.kind {
                GameKind::War => config.war_restart_delay,
                _ => config.finished_linger,
            },
            first_move: config.first_move_timeout,
        }
    }

    fn around(
        shared: Arc<Shared>,
        rules: Rules,
        commands: mpsc::WeakSender<Command>,
        setup: Setup,
        starter: Starter,
        seats: [Sitter<Human>; 2],
        started_ms: u64,
    ) -> Game {
        let config = &shared.config;
        let (pace, budget) = match setup.kind {
            GameKind::War => (config.war_move_delay, config.war_budget),
            _ => (config.ai_think_delay, config.ai_budget),
        };
        Game {
            rules,
            listed: setup.listed,
            stored_seq: 0,
            started_ms,
            audience: Audience::new(seats, GaugeShare::new(&shared.operator.metrics.watchers)),
            thinking: false,
            fenced: false,
            takebacks: 0,
            pace,
            budget,
            commands,
            on_end: setup.on_end,
            opening: Some((setup.requester, setup.watcher)),
            start: None,
            away: Vec::new(),
            starter,
            shared,
        }
    }

    /// A new game, to be stored before its first snapshot goes out (with its row in `arena`,
    /// when an arena starts it, in the same transaction).
    pub(crate) fn starting(mut self, start: GameStart, arena: Option<ArenaHold>) -> Game {
        self.start = Some((start, arena));
        self
    }

    /// A game that was being played when the server stopped, as the store kept it: the same
    /// board, moves, `seq` and clocks (nothing running yet), its players away from now on, so
    /// their grace starts when the server does.
    pub(crate) fn restore(
        shared: Arc<Shared>,
        commands: mpsc::WeakSender<Command>,
        setup: Setup,
        starter: Starter,
        live: &LiveGame,
    ) -> Result<Game, String> {
        let id = live.start.game;
        let seats = setup.seats.clone().map(|seat| {
            seat.map(|session| {
                session.join_game(id);
                Human::seated(session, Vec::new())
            })
        });
        let moves: Vec<(usize, Option<u64>)> = live
            .moves
            .iter()
            .map(|played| (played.cell, played.clock_ms))
            .collect();
        let table = Self::table(&shared, id, &setup, &seats);
        let rules = Rules::restore(table, &moves, live.seq, now())?;
        let started_ms = live.start.started_ms;
        let mut game = Game::around(shared, rules, commands, setup, starter, seats, started_ms);
        game.stored_seq = live.seq;
        Ok(game)
    }

    /// The actor's life: first snapshots, then commands and timers until the game closes.
    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        let (variant, kind) = (self.rules.board().variant(), self.rules.kind());
        // The war games start and end all day long: routine, not news.
        if kind == GameKind::War {
            debug!(%variant, ?kind, "game started");
        } else {
            info!(%variant, ?kind, "game started");
        }
        if let Some((start, arena)) = self.start.take() {
            let stored = match arena {
                Some(arena) => self.shared.store.start_arena_game(start, arena).await,
                None => self.shared.store.start_game(start).await,
            };
            if let Err(err) = stored {
                // A pairing of an arena another node directs now is called off unseen.
                if let StoreError::FencedArena(arena) = err {
                    warn!(
                        arena = arena.0,
                        "the arena's director lost it; pairing void"
                    );
                } else {
                    error!(cause = %err, "the new game could not be stored; it is called off");
                    self.call_off();
                }
                self.close();
                return;
            }
            self.list();
        }
        self.open();
        // A restored game whose last move ended it, should the store have kept the move but not
        // the end, ends now.
        if let Some(end) = self.rules.board_end() {
            self.end(end, None).await;
        }
        self.settle().await;
        let stop = self.shared.lifecycle.stop_games.clone();
        loop {
            let deadline = self.rules.deadline().map(Instant::from_std);
            let mut flow = tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.handle(command).await,
                    None => Flow::Close,
                },
                () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_timer().await
                }
                () = stop.cancelled() => {
                    // A store that outlives the process keeps the game to be restored; otherwise
                    // it ends here, and its players are told.
                    if !self.shared.store.is_persistent()
                        && let Some(end) = self.rules.abort()
                    {
                        self.end(end, None).await;
                    }
                    self.last_commands(&mut commands).await;
                    Flow::Close
                }
            };
            // The rest of the batch: whatever queued up meanwhile.
            for _ in 1..BATCH {
                let Flow::Continue = flow else { break };
                match commands.try_recv() {
                    Ok(command) => flow = self.handle(command).await,
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => flow = Flow::Close,
                }
            }
            self.settle().await;
            if self.fenced {
                warn!("this node no longer holds the game; it stops here");
                break;
            }
            if let Flow::Close = flow {
                break;
            }
        }
        self.close();
    }

    /// At a stop: what was queued before it is answered (a move played is stored, and the game
    /// restored elsewhere has it); what comes after finds the game closed.
    async fn last_commands(&mut self, commands: &mut mpsc::Receiver<Command>) {
        commands.close();
        while let Ok(command) = commands.try_recv() {
            if let Flow::Close = self.handle(command).await {
                break;
            }
        }
    }

    /// Sends the first snapshots, lists the game and sets the first turn going.
    fn open(&mut self) {
        let (requester, watcher) = self.opening.take().unwrap_or((None, None));
        let now = now();
        if let Some((session, from)) = &watcher {
            let watcher = Watcher {
                session: session.clone(),
                out: from.out.clone(),
            };
            self.audience.add_watcher(from.out.conn, watcher);
        }
        self.rules.open(self.audience.watchers_here(), now);
        let mut dropped = Vec::new();
        for mark in [Mark::X, Mark::O] {
            let Sitter::Human(human) = &self.audience.seats[index(mark)] else {
                continue;
            };
            if human.outs.is_empty() {
                self.away.push(mark);
                continue;
            }
            for out in &human.outs {
                // The requester's own connection gets its reply; the player's others, the same
                // snapshot without the id.
                let id = requester
                    .as_ref()
                    .filter(|r| r.out.conn == out.conn)
                    .and_then(|r| r.id.clone());
                if !out.send(self.snapshot(Some(mark), None, id, now)) {
                    dropped.push((mark, out.conn));
                }
            }
        }
        for (mark, conn) in dropped {
            self.audience.drop_seat(mark, conn);
        }
        if let Some((_, from)) = watcher
            && !from
                .out
                .send(self.snapshot(None, Some(from.player), from.id, now))
        {
            self.audience.remove_watcher(from.out.conn);
            self.watchers_changed();
        }
        self.think();
    }

    /// A new game that could not be stored: nobody has seen it yet; its players (and whoever asked
    /// for it) hear why, and it closes.
    fn call_off(&mut self) {
        let (requester, watcher) = self.opening.take().unwrap_or((None, None));
        let message = "the server could not save the new game; try again";
        let mut told = Vec::new();
        for from in requester
            .iter()
            .chain(watcher.as_ref().map(|(_, from)| from))
        {
            from.out
                .error(from.id.clone(), ErrorCode::Internal, message);
            told.push(from.player);
        }
        for seat in &self.audience.seats {
            if let Sitter::Human(human) = seat
                && !told.contains(&human.session.player)
            {
                for out in &human.outs {
                    out.error(None, ErrorCode::Internal, message);
                }
            }
        }
        if let Some((session, _)) = watcher {
            session.set_watching(self.rules.id(), false);
        }
    }

    /// Ends a batch: seats whose player dropped are marked away, a changed watcher count goes out
    /// (if its time has come), and the store learns the latest `seq`.
    async fn settle(&mut self) {
        let now = now();
        loop {
            if let Some((mark, conn)) = self.audience.next_dropped() {
                self.seat_gone(mark, conn).await;
            } else if let Some(mark) = self.away.pop() {
                self.seat_away(mark).await;
            } else if let Some(update) = self.rules.flush_watchers(now) {
                self.broadcast(update, None).await;
                self.list_entry();
            } else {
                break;
            }
        }
        self.audience.count_watchers();
    }

    async fn handle(&mut self, command: Command) -> Flow {
        if self.lease_lapsed() {
            return Flow::Close;
        }
        match command {
            Command::Move { from, cell } => match self.rules.try_move(from.player, cell, now()) {
                Ok(decision) => self.decided(decision, Some(from)).await,
                Err(refused) => refuse(&from, refused),
            },
            Command::Resign { from } => match self.rules.resign(from.player) {
                Ok(end) => self.end(end, Some(from)).await,
                Err(refused) => refuse(&from, refused),
            },
            Command::Rematch { from } => self.on_rematch(from).await,
            Command::OfferDraw { from } => self.on_offer_draw(from).await,
            Command::Takeback { from } => self.on_takeback(from).await,
            Command::Decline { from } => self.on_decline(from).await,
            Command::CancelOffer { from } => self.on_cancel_offer(from).await,
            Command::Claim { from, outcome } => self.on_claim(from, outcome).await,
            Command::Abort { from } => self.on_abort(from).await,
            // Its lease lapsed: handled above, as before every command.
            Command::StepDown => {}
            Command::EndByOperator => {
                if let Some(end) = self.rules.abort() {
                    self.end(end, None).await;
                }
            }
            Command::Leave { player } => {
                if let Ok(end) = self.rules.resign(player) {
                    self.end(end, None).await;
                }
            }
            Command::Chat {
                from,
                speaker,
                text,
                watching,
            } => {
                let watching = watching || self.audience.is_watching(from.out.conn);
                match self.rules.chat(from.player, watching, speaker, text) {
                    Ok(update) => self.broadcast(update, Some(from)).await,
                    Err(refused) => refuse(&from, refused),
                }
            }
            Command::Watch { session, from } => self.on_watch(session, from),
            Command::RemoteWatchers { node, count } => self.remote_watchers(node, count),
            Command::Unwatch { conn, from } => {
                if let Some(watcher) = self.audience.remove_watcher(conn) {
                    watcher
                        .session
                        .set_watching(self.rules.id(), from.is_none());
                    self.watchers_changed();
                }
                if let Some(from) = from
                    && from.id.is_some()
                {
                    from.out.reply(from.id, ServerMessage::Ok);
                }
            }
            Command::Attach { player, out, done } => {
                self.on_attach(player, out).await;
                drop(done);
            }
            Command::Detach { player, conn } => {
                if let Some(mark) = self.rules.mark_of(player) {
                    self.seat_gone(mark, conn).await;
                }
            }
            Command::AiMove {
                ply,
                cell,
                takebacks,
            } => {
                self.thinking = false;
                if takebacks != self.takebacks {
                    self.think();
                    return Flow::Continue;
                }
                match self.rules.try_ai_move(ply, cell, now()) {
                    Ok(Some(decision)) => self.decided(decision, None).await,
                    Ok(None) => {}
                    Err(err) => warn!(cell, %err, "the AI chose an illegal move"),
                }
            }
        }
        Flow::Continue
    }

    /// Carries out an accepted move: the end if the mover's flag fell, the move otherwise.
    async fn decided(&mut self, decision: Decision, from: Option<Requester>) {
        match decision {
            Decision::Play(pending) => self.play(pending, from).await,
            Decision::End(end) => self.end(end, from).await,
        }
    }

    /// Plays a checked move: stores it (with the end, if it ends the game), then tells everyone.
    pub(super) async fn play(&mut self, pending: PendingMove, from: Option<Requester>) {
        let record = pending.record;
        let played = StoredMove {
            cell: record.cell,
            at_ms: now_ms().saturating_sub(self.started_ms),
            clock_ms: record.clock_ms,
        };
        // The store keeps a mark above every `seq` given out (see `SEQ_RESERVE`). A move raises
        // it only when less than half the reserve is left, so most moves write their own row
        // alone; a move that ends the game needs none, as a finished game is never restored.
        let seq_mark = (record.ending.is_none() && record.seq + SEQ_RESERVE / 2 > self.stored_seq)
            .then_some(record.seq + SEQ_RESERVE);
        let stored_ending = record.ending.map(|end| super::stored::stored(&end));
        let stored = self
            .shared
            .store
            .record_move(self.rules.id(), record.ply, seq_mark, played, stored_ending)
            .await;
        let settled = match self.persisted(stored) {
            Ok(settled) => settled,
            Err(None) => return,
            Err(Some(StoreError::Diverged { ply, stored, .. })) => {
                return self.earlier_try_stands(ply, stored, from).await;
            }
            Err(Some(err)) => {
                error!(cause = %err, cell = record.cell, "the move could not be stored; it is not played");
                match from {
                    Some(from) => from.out.error(
                        from.id,
                        ErrorCode::GamePaused,
                        "the site could not save that move just now; nothing was played, try again",
                    ),
                    None => {
                        self.thinking = false;
                        self.think();
                    }
                }
                return;
            }
        };
        // The write took a moment: the next side's time starts now, charging nobody for it.
        let updates = self.rules.commit_move(pending, now());
        if let Some(mark) = seq_mark {
            self.stored_seq = self.stored_seq.max(mark);
        }
        self.shared.operator.metrics.moves.inc();
        if updates.len() > 1 {
            // A move that ends the game reaches each player together with `game_over`.
            self.audience.hold();
        }
        let mut updates = updates.into_iter();
        if let Some(moved) = updates.next() {
            self.broadcast(moved, from).await;
        }
        debug!(mark = ?record.mark, cell = record.cell, "move");
        match updates.next() {
            Some(game_over) => self.concluded(game_over, None, settled).await,
            None => {
                self.list_entry();
                self.think();
            }
        }
        self.audience.release();
    }

    /// Sets an AI seat thinking if it is its move.
    pub(super) fn think(&mut self) {
        let Some((level, board)) = self.rules.ai_to_move() else {
            return;
        };
        if self.thinking {
            return;
        }
        self.thinking = true;
        let ply = board.ply();
        let takebacks = self.takebacks;
        let budget = self.budget;
        let not_before = Instant::now() + self.pace;
        let commands = self.commands.clone();
        let stop = self.shared.lifecycle.stop_games.clone();
        let slots = self.shared.engine.ai_slots.clone();
        let think_time = self.shared.operator.metrics.ai_think.clone();
        self.shared.lifecycle.tasks.spawn(async move {
            let paced = async {
                // The semaphore is never closed, so a permit always comes.
                let permit = slots.acquire_owned().await;
                let choice = tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    let started = std::time::Instant::now();
                    let choice = choose_move(&board, level, &mut Rng::new(), budget);
                    think_time.observe(started.elapsed().as_secs_f64());
                    choice
                })
                .await;
                sleep_until(not_before).await;
                choice
            };
            // At shutdown nobody waits for the move (the search itself finishes on its own).
            let choice = tokio::select! {
                choice = paced => choice,
                () = stop.cancelled() => return,
            };
            let cell = match choice {
                Ok(Some(choice)) if board.play(choice.cell).is_ok() => choice.cell,
                // The game must never stall on its AI: any legal move is better than none.
                other => {
                    warn!(
                        ?other,
                        "the AI search gave no legal move; playing a random one"
                    );
                    let moves: Vec<usize> = board.legal_moves().collect();
                    if moves.is_empty() {
                        return;
                    }
                    moves[Rng::new().usize(..moves.len())]
                }
            };
            if let Some(commands) = commands.upgrade() {
                let _ = commands
                    .send(Command::AiMove {
                        ply,
                        cell,
                        takebacks,
                    })
                    .await;
            }
        });
    }

    async fn on_rematch(&mut self, from: Requester) {
        match self.rules.ask_rematch(from.player) {
            Err(refused) => refuse(&from, refused),
            Ok(Rematch::Repeat(message)) => {
                from.out.reply(from.id, message);
            }
            Ok(Rematch::Offer(update)) => self.broadcast(update, Some(from)).await,
            Ok(Rematch::Start) => self.start_rematch(from),
        }
    }

    /// Starts the rematch with sides swapped; the accepting request's reply is its snapshot.
    fn start_rematch(&mut self, from: Requester) {
        let seat = |seat: &Sitter<Human>| seat.as_ref().map(|human| human.session.clone());
        let setup = Setup {
            variant: self.rules.board().variant(),
            kind: self.rules.kind(),
            seats: [seat(&self.audience.seats[1]), seat(&self.audience.seats[0])],
            clock: self.rules.clock_spec(),
            owner: None,
            rated: self.rules.rated(),
            listed: self.listed,
            rematch_of: Some(self.rules.id()),
            requester: Some(from.clone()),
            watcher: None,
            on_end: None,
        };
        match (self.starter)(&self.shared, setup) {
            Ok(id) => self.rules.rematch_started(id),
            Err(refusal) => from.out.error(from.id, refusal.code, refusal.message),
        }
    }

    async fn on_timer(&mut self) -> Flow {
        if self.lease_lapsed() {
            return Flow::Close;
        }
        match self.rules.due(now()) {
            Some(Due::Close) => Flow::Close,
            Some(Due::End(end)) => {
                self.end(end, None).await;
                Flow::Continue
            }
            None => Flow::Continue,
        }
    }

    /// The game leaves every index.
    pub(super) fn close(&mut self) {
        let id = self.rules.id();
        if !self.rules.is_over() {
            self.shared.registry.games.end_live();
        }
        self.shared.registry.games.remove(id);
        if let Some(wing) = &self.shared.wing {
            wing.closed(id);
        }
        if self.listed {
            if self.fenced && !self.rules.is_over() {
                self.shared.lobby.disown(id);
            } else {
                self.shared.lobby.remove_game(id);
            }
        }
        for seat in &self.audience.seats {
            if let Sitter::Human(human) = seat {
                human.session.leave_game(id);
            }
        }
        for watcher in self.audience.watchers() {
            watcher.session.set_watching(id, false);
        }
        debug!("game closed");
    }
}

/// Answers a refused request.
pub(super) fn refuse(from: &Requester, refusal: Refusal) {
    from.out
        .error(from.id.clone(), refusal.code, refusal.message);
}
