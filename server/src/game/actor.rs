//! The game actor: the one place that validates a move, runs the clocks, and serialises each update
//! once for both players and every watcher.
//!
//! It is also where the store hears of every change: a move (and an end) is written, and the
//! actor waits for that write to be durable, before anyone is told of it; so what a player has
//! seen is never lost, and a move the store cannot keep is refused rather than half made.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use noughts_engine::{Board, Budget, Outcome, Rng, cells_of, choose_move};
use noughts_protocol::{
    ChatLine, EndReason, ErrorCode, GameId, GameInfo, GameKind, GameResult, GameState, Mark,
    PlayerId, ServerMessage, Variant,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, error, info, warn};

use super::clock::Clock;
use super::seat::{Human, Seat, Watcher, index};
use super::{Command, Requester, SeatSetup, Setup};
use crate::metrics::GaugeShare;
use crate::outbound::{Frame, Outbound, frame, with_id};
use crate::server::Shared;
use crate::session::Session;
use crate::store::{Ending, GameStart, LiveGame, Rerated, StoredMove, now_ms};

/// Chat lines a snapshot carries.
const CHAT_HISTORY: usize = 20;

/// One game's state, owned by its task.
#[derive(Debug)]
pub(crate) struct Game {
    /// The registry, lobby and config, to list, rematch and close.
    shared: Arc<Shared>,
    id: GameId,
    /// Human, AI or war: shown in snapshots and the lobby, and decides the AI's pace.
    kind: GameKind,
    /// Listed in the lobby while live.
    listed: bool,
    /// Whether the game counts for ratings.
    rated: bool,
    /// The position; the engine checks every move against it.
    board: Board,
    /// Cells in the order played, for snapshots.
    moves: Vec<usize>,
    /// The number of the latest update; every update takes the next one.
    seq: u64,
    /// The latest `seq` handed to the store, which keeps it so a restored game goes on from it.
    stored_seq: u64,
    /// When the game started, in milliseconds since the Unix epoch; moves are timed from it.
    started_ms: u64,
    /// X's seat, then O's.
    seats: [Seat; 2],
    /// The time control, if the game is timed.
    clock: Option<Clock>,
    /// How it ended, once it has.
    result: Option<GameResult>,
    /// Everyone watching, by player, each with its own queue.
    watchers: HashMap<PlayerId, Watcher>,
    /// The latest chat lines, for snapshots.
    chat: VecDeque<ChatLine>,
    /// The side that offered a rematch and awaits the answer.
    rematch_offer: Option<Mark>,
    /// The rematch, once it started.
    rematch: Option<GameId>,
    /// The game this one is a rematch of, for snapshots.
    rematch_of: Option<GameId>,
    /// Whether an AI search for the current position is under way.
    thinking: bool,
    /// Least time per AI move.
    pace: Duration,
    /// Search budget per AI move.
    budget: Budget,
    /// How the AI tasks hand their move back; weak, so the registry alone keeps the game alive.
    commands: mpsc::WeakSender<Command>,
    /// When a finished game closes.
    close_at: Option<Instant>,
    /// Told when the game ends (war-game keeper, per-player limits).
    on_end: Option<oneshot::Sender<()>>,
    /// The first snapshot's audience: the requester (reply id) and the first watcher.
    opening: Option<Opening>,
    /// A new game's record, stored before anyone is told of the game (so its id is never given
    /// out twice, even across a crash); absent for a restored game.
    start: Option<GameStart>,
    /// Seats whose connection failed during a broadcast; handled once the broadcast is done.
    dropped: Vec<Mark>,
    /// Whether watchers left (failed) during a broadcast.
    watchers_changed: bool,
    /// This game's part of the watchers gauge.
    watchers_counted: GaugeShare,
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
    ) -> Game {
        let config = &shared.config;
        let (pace, budget) = match setup.kind {
            GameKind::War => (config.war_move_delay, config.war_budget),
            _ => (config.ai_think_delay, config.ai_budget),
        };
        let seats = setup.seats.map(|seat| match seat {
            SeatSetup::Human(session) => {
                let out = session.join_game(id);
                Seat::Human(Human {
                    session,
                    out,
                    away_since: None,
                    grace_left: config.grace,
                    missed_end: false,
                })
            }
            SeatSetup::Ai(level) => Seat::Ai(level),
        });
        Game {
            id,
            kind: setup.kind,
            listed: setup.listed,
            rated: setup.rated,
            board: Board::new(setup.variant),
            moves: Vec::new(),
            seq: 0,
            stored_seq: 0,
            started_ms,
            seats,
            clock: setup.clock.map(Clock::new),
            result: None,
            watchers: HashMap::new(),
            chat: VecDeque::new(),
            rematch_offer: None,
            rematch: None,
            rematch_of: setup.rematch_of,
            thinking: false,
            pace,
            budget,
            commands,
            close_at: None,
            on_end: setup.on_end,
            opening: Some((setup.requester, setup.watcher)),
            start: None,
            dropped: Vec::new(),
            watchers_changed: false,
            watchers_counted: GaugeShare::new(&shared.metrics.watchers),
            shared,
        }
    }

    /// A new game, to be stored before its first snapshot goes out.
    pub(crate) fn starting(mut self, start: GameStart) -> Game {
        self.start = Some(start);
        self
    }

    /// A game that was being played when the server stopped, as the store kept it: the same
    /// board, moves, `seq` and clocks (nothing running yet), its players away from now on, so
    /// their grace starts when the server does.
    pub(crate) fn restore(
        shared: Arc<Shared>,
        commands: mpsc::WeakSender<Command>,
        setup: Setup,
        live: &LiveGame,
    ) -> Result<Game, String> {
        let mut game = Game::new(
            shared,
            live.start.game,
            commands,
            setup,
            live.start.started_ms,
        );
        let mut left = [None, None];
        for played in &live.moves {
            let mark = game.board.to_move();
            game.board = game
                .board
                .play(played.cell)
                .map_err(|err| format!("stored move {}: {err}", played.cell))?;
            game.moves.push(played.cell);
            if played.clock_ms.is_some() {
                left[index(mark)] = played.clock_ms;
            }
        }
        game.clock = live.start.clock.map(|spec| Clock::restored(spec, left));
        game.seq = live.seq;
        game.stored_seq = live.seq;
        let now = Instant::now();
        for seat in &mut game.seats {
            if let Seat::Human(human) = seat {
                human.out = None;
                human.away_since = Some(now);
            }
        }
        Ok(game)
    }

    /// The actor's life: first snapshots, then commands and timers until the game closes.
    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        info!(variant = %self.board.variant(), kind = ?self.kind, "game started");
        if let Some(start) = self.start.take() {
            if let Err(err) = self.shared.store.start_game(start).await {
                error!(cause = %err, "the new game could not be stored; it is called off");
                self.call_off();
                self.close();
                return;
            }
            self.list();
        }
        self.open(Instant::now());
        // A restored game whose last move ended it, should the store have kept the move but not
        // the end, ends now.
        if self.result.is_none() {
            match self.board.outcome() {
                Some(Outcome::Win { mark, cells }) => {
                    self.end(Some(mark), EndReason::Line, cells, None, Instant::now())
                        .await;
                }
                Some(Outcome::Draw) => {
                    self.end(None, EndReason::Draw, 0, None, Instant::now())
                        .await;
                }
                None => {}
            }
        }
        self.settle(Instant::now());
        let stop = self.shared.stop_games.clone();
        loop {
            let deadline = self.deadline();
            let flow = tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.handle(command, Instant::now()).await,
                    None => Flow::Close,
                },
                () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_timer(Instant::now()).await
                }
                () = stop.cancelled() => {
                    // A store that outlives the process keeps the game to be restored; otherwise
                    // it ends here, and its players are told.
                    if self.result.is_none() && !self.shared.store.is_persistent() {
                        self.end(None, EndReason::Aborted, 0, None, Instant::now()).await;
                    }
                    Flow::Close
                }
            };
            self.settle(Instant::now());
            if let Flow::Close = flow {
                break;
            }
        }
        self.close();
    }

    /// Sends the first snapshots, lists the game and sets the first turn going.
    fn open(&mut self, now: Instant) {
        let (requester, watcher) = self.opening.take().unwrap_or((None, None));
        self.start_turn(now);
        for mark in [Mark::X, Mark::O] {
            let Seat::Human(human) = &self.seats[index(mark)] else {
                continue;
            };
            let Some(out) = human.out.clone() else {
                self.dropped.push(mark);
                continue;
            };
            let id = requester
                .as_ref()
                .filter(|r| r.player == human.session.player)
                .and_then(|r| r.id.clone());
            if !out.send(self.snapshot(Some(mark), id, now)) {
                self.dropped.push(mark);
            }
        }
        if let Some((session, from)) = watcher {
            self.add_watcher(session, from, now);
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
        for seat in &self.seats {
            if let Seat::Human(human) = seat
                && !told.contains(&human.session.player)
                && let Some(out) = &human.out
            {
                out.error(None, ErrorCode::Internal, message);
            }
        }
        if let Some((session, _)) = watcher {
            session.set_watching(self.id, false);
        }
    }

    /// Handles the consequences of failed sends: seats whose player dropped, watchers who left.
    fn settle(&mut self, now: Instant) {
        loop {
            if let Some(mark) = self.dropped.pop() {
                self.seat_away(mark, now);
            } else if std::mem::take(&mut self.watchers_changed) {
                self.seq += 1;
                let message = ServerMessage::Watchers {
                    game: self.id,
                    seq: self.seq,
                    count: self.watcher_count(),
                };
                self.broadcast(message, None);
                self.list();
            } else {
                break;
            }
        }
        self.watchers_counted.set(self.watchers.len());
        if self.result.is_none() && self.seq > self.stored_seq {
            self.shared.store.set_seq(self.id, self.seq);
            self.stored_seq = self.seq;
        }
    }

    async fn handle(&mut self, command: Command, now: Instant) -> Flow {
        match command {
            Command::Move { from, cell } => self.on_move(from, cell, now).await,
            Command::Resign { from } => self.on_resign(from, now).await,
            Command::Rematch { from } => self.on_rematch(from, now),
            Command::Chat { from, name, text } => self.on_chat(from, name, text),
            Command::Watch { session, from } => self.on_watch(session, from, now),
            Command::Unwatch { player, conn, from } => {
                let present = self
                    .watchers
                    .get(&player)
                    .is_some_and(|w| from.is_some() || w.out.conn == conn);
                if present {
                    if let Some(watcher) = self.watchers.remove(&player) {
                        watcher.session.set_watching(self.id, from.is_none());
                    }
                    self.watchers_changed = true;
                }
                if let Some(from) = from
                    && from.id.is_some()
                {
                    from.out.reply(from.id, ServerMessage::Ok);
                }
            }
            Command::Attach { player, out, done } => {
                self.on_attach(player, out, now);
                drop(done);
            }
            Command::Detach { player, conn } => {
                if let Some(mark) = self.mark_of(player)
                    && let Seat::Human(human) = &self.seats[index(mark)]
                    && human.out.as_ref().is_some_and(|o| o.conn == conn)
                {
                    self.seat_away(mark, now);
                }
            }
            Command::AiMove { ply, cell } => {
                self.thinking = false;
                let mover = self.board.to_move();
                if self.result.is_none()
                    && self.board.ply() == ply
                    && matches!(self.seats[index(mover)], Seat::Ai(_))
                {
                    match self.board.play(cell) {
                        Ok(_) => self.play(mover, cell, None, now).await,
                        Err(err) => warn!(cell, %err, "the AI chose an illegal move"),
                    }
                }
            }
        }
        Flow::Continue
    }

    fn mark_of(&self, player: PlayerId) -> Option<Mark> {
        [Mark::X, Mark::O]
            .into_iter()
            .find(|&mark| self.seats[index(mark)].player() == Some(player))
    }

    async fn on_move(&mut self, from: Requester, cell: usize, now: Instant) {
        let Some(mark) = self.mark_of(from.player) else {
            return refuse(
                &from,
                ErrorCode::NotAPlayer,
                "only the game's players may move",
            );
        };
        if self.result.is_some() {
            return refuse(&from, ErrorCode::GameOver, "the game is over");
        }
        if self.board.to_move() != mark {
            return refuse(&from, ErrorCode::NotYourTurn, "it is the other side's move");
        }
        if let Err(err) = self.board.play(cell) {
            return refuse(&from, ErrorCode::IllegalMove, err.to_string());
        }
        self.play(mark, cell, Some(from), now).await;
    }

    /// Plays a checked move: stores it (with the end, if it ends the game), then tells everyone.
    async fn play(&mut self, mark: Mark, cell: usize, from: Option<Requester>, now: Instant) {
        let clock_before = self.clock.clone();
        if let Some(clock) = &mut self.clock
            && !clock.charge_move(mark, now)
        {
            self.end(Some(mark.opponent()), EndReason::Timeout, 0, from, now)
                .await;
            return;
        }
        let board = self.board.play_unchecked(cell);
        let outcome = board.outcome();
        let ending = match outcome {
            Some(Outcome::Win { mark, cells }) => Some((Some(mark), EndReason::Line, cells)),
            Some(Outcome::Draw) => Some((None, EndReason::Draw, 0)),
            None => None,
        };
        let played = StoredMove {
            cell,
            at_ms: now_ms().saturating_sub(self.started_ms),
            clock_ms: self.clock.as_ref().map(|clock| clock.left_ms(mark, now)),
        };
        let stored_ending = ending.map(|(winner, reason, cells)| Ending {
            seq: self.seq + 2,
            winner,
            reason,
            cells: cells_of(cells).collect(),
            ended_ms: now_ms(),
        });
        let stored = self
            .shared
            .store
            .record_move(
                self.id,
                self.board.ply(),
                self.seq + 1,
                played,
                stored_ending,
            )
            .await;
        let rerated = match stored {
            Ok(rerated) => rerated,
            Err(err) => {
                error!(cause = %err, cell, "the move could not be stored; it is not played");
                self.clock = clock_before;
                match from {
                    Some(from) => refuse(
                        &from,
                        ErrorCode::Internal,
                        "the server could not save that move; try again",
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
        let now = Instant::now();
        self.board = board;
        self.moves.push(cell);
        self.shared.metrics.moves.inc();
        self.rematch_offer = None;
        if outcome.is_none() {
            self.start_turn(now);
        }
        self.seq += 1;
        self.stored_seq = self.seq;
        let message = ServerMessage::Moved {
            game: self.id,
            seq: self.seq,
            mark,
            cell,
            board: self.board.to_compact(),
            to_move: outcome.is_none().then(|| self.board.to_move()),
            clocks: self.clocks(now),
        };
        self.broadcast(message, from);
        debug!(?mark, cell, "move");
        match ending {
            Some((winner, reason, cells)) => {
                self.conclude(winner, reason, cells, None, now, rerated);
            }
            None => {
                self.list();
                self.think();
            }
        }
    }

    /// Starts the clock of the side to move if they can know it is their move: an AI always can, a
    /// person only while connected (a snapshot restarts it on their return).
    fn start_turn(&mut self, now: Instant) {
        let mover = self.board.to_move();
        let reachable = match &self.seats[index(mover)] {
            Seat::Ai(_) => true,
            Seat::Human(human) => human.out.is_some(),
        };
        if let (Some(clock), true) = (&mut self.clock, reachable) {
            clock.start(mover, now);
        }
    }

    /// Sets an AI seat thinking if it is its move.
    fn think(&mut self) {
        let mover = self.board.to_move();
        let Seat::Ai(level) = self.seats[index(mover)] else {
            return;
        };
        if self.result.is_some() || self.thinking {
            return;
        }
        self.thinking = true;
        let board = self.board;
        let ply = board.ply();
        let budget = self.budget;
        let not_before = Instant::now() + self.pace;
        let commands = self.commands.clone();
        let stop = self.shared.stop_games.clone();
        let slots = self.shared.ai_slots.clone();
        let think_time = self.shared.metrics.ai_think.clone();
        self.shared.tasks.spawn(async move {
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
                let _ = commands.send(Command::AiMove { ply, cell }).await;
            }
        });
    }

    /// Ends the game: stores the end (and rates a rated game), then tells everyone.
    async fn end(
        &mut self,
        winner: Option<Mark>,
        reason: EndReason,
        cells: u64,
        from: Option<Requester>,
        now: Instant,
    ) {
        let ending = Ending {
            seq: self.seq + 1,
            winner,
            reason,
            cells: cells_of(cells).collect(),
            ended_ms: now_ms(),
        };
        let rerated = match self.shared.store.end_game(self.id, ending).await {
            Ok(rerated) => rerated,
            Err(err) => {
                // The game is over for the players all the same; only the store lags behind.
                error!(cause = %err, "the end of the game could not be stored");
                None
            }
        };
        self.conclude(winner, reason, cells, from, now, rerated);
    }

    /// The game is over and stored: tells everyone and shows the new ratings.
    fn conclude(
        &mut self,
        winner: Option<Mark>,
        reason: EndReason,
        cells: u64,
        from: Option<Requester>,
        now: Instant,
        rerated: Option<Rerated>,
    ) {
        if let Some(Rerated { x, o }) = rerated {
            for (mark, rating) in [(Mark::X, x), (Mark::O, o)] {
                if let Seat::Human(human) = &self.seats[index(mark)] {
                    human.session.rated_game(self.board.variant(), rating);
                }
            }
        }
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
        let result = GameResult {
            winner,
            reason,
            cells: cells_of(cells).collect(),
        };
        self.result = Some(result.clone());
        self.shared.registry.end_live_game();
        self.seq += 1;
        let message = ServerMessage::GameOver {
            game: self.id,
            seq: self.seq,
            board: self.board.to_compact(),
            result,
            clocks: self.clocks(now),
        };
        self.broadcast(message, from);
        for mark in [Mark::X, Mark::O] {
            let failed = self.dropped.contains(&mark);
            if let Seat::Human(human) = &mut self.seats[index(mark)]
                && (human.out.is_none() || failed)
            {
                human.missed_end = true;
            }
        }
        info!(?winner, ?reason, "game over");
        if self.listed {
            self.shared.lobby.remove_game(self.id);
        }
        if let Some(on_end) = self.on_end.take() {
            let _ = on_end.send(());
        }
        let linger = match self.kind {
            GameKind::War => self.shared.config.war_restart_delay,
            _ => self.shared.config.finished_linger,
        };
        self.close_at = Some(now + linger);
    }

    async fn on_resign(&mut self, from: Requester, now: Instant) {
        let Some(mark) = self.mark_of(from.player) else {
            return refuse(
                &from,
                ErrorCode::NotAPlayer,
                "only the game's players may resign",
            );
        };
        if self.result.is_some() {
            return refuse(&from, ErrorCode::GameOver, "the game is over");
        }
        self.end(Some(mark.opponent()), EndReason::Resign, 0, Some(from), now)
            .await;
    }

    fn on_rematch(&mut self, from: Requester, now: Instant) {
        let Some(mark) = self.mark_of(from.player) else {
            return refuse(
                &from,
                ErrorCode::NotAPlayer,
                "only the game's players may ask for a rematch",
            );
        };
        if self.result.is_none() {
            return refuse(
                &from,
                ErrorCode::GameNotOver,
                "the game is still being played",
            );
        }
        if let Some(rematch) = self.rematch {
            return refuse(
                &from,
                ErrorCode::GameOver,
                format!("the rematch has already started as game {rematch}"),
            );
        }
        let opponent_is_ai = matches!(self.seats[index(mark.opponent())], Seat::Ai(_));
        match self.rematch_offer {
            Some(by) if by == mark => {
                from.out.reply(
                    from.id,
                    ServerMessage::RematchOffered {
                        game: self.id,
                        seq: self.seq,
                        by: mark,
                    },
                );
            }
            Some(_) => self.start_rematch(from),
            None if opponent_is_ai => self.start_rematch(from),
            None => {
                self.rematch_offer = Some(mark);
                self.seq += 1;
                let message = ServerMessage::RematchOffered {
                    game: self.id,
                    seq: self.seq,
                    by: mark,
                };
                self.broadcast(message, Some(from));
            }
        }
        let _ = now;
    }

    /// Starts the rematch with sides swapped; the accepting request's reply is its snapshot.
    fn start_rematch(&mut self, from: Requester) {
        let seat = |seat: &Seat| match seat {
            Seat::Human(human) => SeatSetup::Human(human.session.clone()),
            Seat::Ai(level) => SeatSetup::Ai(*level),
        };
        let setup = Setup {
            variant: self.board.variant(),
            kind: self.kind,
            seats: [seat(&self.seats[1]), seat(&self.seats[0])],
            clock: self.clock.as_ref().map(|c| c.spec),
            owner: None,
            rated: self.rated,
            listed: self.listed,
            rematch_of: Some(self.id),
            requester: Some(from.clone()),
            watcher: None,
            on_end: None,
        };
        match super::start(&self.shared, setup) {
            Ok(id) => {
                self.rematch = Some(id);
                self.rematch_offer = None;
            }
            Err(refusal) => from.out.error(from.id, refusal.code, refusal.message),
        }
    }

    fn on_chat(&mut self, from: Requester, name: String, text: String) {
        let mark = self.mark_of(from.player);
        if mark.is_none() && !self.watchers.contains_key(&from.player) {
            return refuse(&from, ErrorCode::NotAPlayer, "watch the game to chat in it");
        }
        let line = ChatLine {
            from: name,
            mark,
            text,
        };
        if self.chat.len() == CHAT_HISTORY {
            self.chat.pop_front();
        }
        self.chat.push_back(line.clone());
        self.seq += 1;
        let message = ServerMessage::Chat {
            game: self.id,
            seq: self.seq,
            line,
        };
        self.broadcast(message, Some(from));
    }

    fn on_watch(&mut self, session: Arc<Session>, from: Requester, now: Instant) {
        if let Some(mark) = self.mark_of(from.player) {
            // Players are not watchers: they already get every update.
            session.set_watching(self.id, false);
            from.out
                .send(self.snapshot(Some(mark), from.id.clone(), now));
            return;
        }
        self.add_watcher(session, from, now);
    }

    fn add_watcher(&mut self, session: Arc<Session>, from: Requester, now: Instant) {
        // Requests still queued from a connection being closed (one dropped for reading too
        // slowly) must not bring it back, or each would tell everyone of a watcher come and gone.
        if from.out.is_closed() {
            return;
        }
        let player = from.player;
        let out = from.out.clone();
        let new = self
            .watchers
            .insert(
                player,
                Watcher {
                    session,
                    out: out.clone(),
                },
            )
            .is_none();
        if new {
            self.seq += 1;
            let message = ServerMessage::Watchers {
                game: self.id,
                seq: self.seq,
                count: self.watcher_count(),
            };
            let frame = frame(None, message);
            self.send_all(&frame, None, Some(player));
            self.list();
        }
        if !out.send(self.snapshot(None, from.id, now)) {
            self.watchers.remove(&player);
            self.watchers_changed = true;
        }
    }

    fn on_attach(&mut self, player: PlayerId, out: Outbound, now: Instant) {
        let Some(mark) = self.mark_of(player) else {
            return;
        };
        let Seat::Human(human) = &mut self.seats[index(mark)] else {
            return;
        };
        human.out = Some(out.clone());
        let missed_end = std::mem::take(&mut human.missed_end);
        let returned = human.away_since.take();
        if let Some(since) = returned {
            human.grace_left = human
                .grace_left
                .saturating_sub(now.saturating_duration_since(since));
            self.seq += 1;
            let message = ServerMessage::Presence {
                game: self.id,
                seq: self.seq,
                mark,
                connected: true,
                grace_ms: None,
            };
            let frame = frame(None, message);
            self.send_all(&frame, Some(mark), None);
            self.list();
        }
        if self.result.is_none() || missed_end {
            if self.result.is_none() && self.board.to_move() == mark {
                self.start_turn(now);
            }
            if !out.send(self.snapshot(Some(mark), None, now)) {
                self.dropped.push(mark);
            }
        }
    }

    /// A seat's player has gone: the clock stops, the grace runs, everyone is told.
    fn seat_away(&mut self, mark: Mark, now: Instant) {
        let live = self.result.is_none();
        let Seat::Human(human) = &mut self.seats[index(mark)] else {
            return;
        };
        if human.out.take().is_none() && human.away_since.is_some() {
            return;
        }
        human.away_since = Some(now);
        let grace_left = human.grace_left;
        if let Some(clock) = &mut self.clock
            && clock.running() == Some(mark)
        {
            clock.stop(now);
        }
        self.seq += 1;
        let message = ServerMessage::Presence {
            game: self.id,
            seq: self.seq,
            mark,
            connected: false,
            grace_ms: live.then(|| u64::try_from(grace_left.as_millis()).unwrap_or(u64::MAX)),
        };
        self.broadcast(message, None);
        self.list();
    }

    /// The next moment something happens by itself: a flag falls, a grace runs out, the game closes.
    fn deadline(&self) -> Option<Instant> {
        if self.result.is_some() {
            return self.close_at;
        }
        let flag = self.clock.as_ref().and_then(Clock::flag_at);
        let grace = self.seats.iter().filter_map(|seat| match seat {
            Seat::Human(human) => human.away_since.map(|since| since + human.grace_left),
            Seat::Ai(_) => None,
        });
        flag.into_iter().chain(grace).min()
    }

    async fn on_timer(&mut self, now: Instant) -> Flow {
        if self.result.is_some() {
            return if self.close_at.is_some_and(|at| now >= at) {
                Flow::Close
            } else {
                Flow::Continue
            };
        }
        if let Some(clock) = &self.clock
            && let (Some(at), Some(mark)) = (clock.flag_at(), clock.running())
            && now >= at
        {
            self.end(Some(mark.opponent()), EndReason::Timeout, 0, None, now)
                .await;
            return Flow::Continue;
        }
        let gone = |mark: Mark| match &self.seats[index(mark)] {
            Seat::Human(human) => human
                .away_since
                .is_some_and(|since| now >= since + human.grace_left),
            Seat::Ai(_) => false,
        };
        if gone(Mark::X) && gone(Mark::O) {
            // Neither came back (as when nobody returns to a game restored after a restart):
            // nobody wins, and a rated game is not rated.
            self.end(None, EndReason::Aborted, 0, None, now).await;
            return Flow::Continue;
        }
        for mark in [Mark::X, Mark::O] {
            if gone(mark) {
                self.end(Some(mark.opponent()), EndReason::Abandon, 0, None, now)
                    .await;
                return Flow::Continue;
            }
        }
        Flow::Continue
    }

    /// The game leaves every index.
    fn close(&mut self) {
        if self.result.is_none() {
            self.shared.registry.end_live_game();
        }
        self.shared.registry.remove_game(self.id);
        if self.listed {
            self.shared.lobby.remove_game(self.id);
        }
        for seat in &self.seats {
            if let Seat::Human(human) = seat {
                human.session.leave_game(self.id);
            }
        }
        for watcher in self.watchers.values() {
            watcher.session.set_watching(self.id, false);
        }
        debug!("game closed");
    }

    /// Sends an update to both players and every watcher; the requester's copy echoes its id.
    fn broadcast(&mut self, message: ServerMessage, from: Option<Requester>) {
        match from {
            Some(from) if from.id.is_some() => {
                let shared = frame(None, message);
                let own = with_id(&shared, from.id.as_ref());
                if !from.out.send(own)
                    && let Some(mark) = self.mark_of(from.player)
                {
                    self.dropped.push(mark);
                }
                let skip_seat = self.mark_of(from.player);
                let skip_watcher = skip_seat.is_none().then_some(from.player);
                self.send_all(&shared, skip_seat, skip_watcher);
            }
            _ => self.send_all(&frame(None, message), None, None),
        }
    }

    /// Sends one frame to the seats and watchers, except the ones named.
    fn send_all(&mut self, frame: &Frame, skip_seat: Option<Mark>, skip_watcher: Option<PlayerId>) {
        for mark in [Mark::X, Mark::O] {
            if Some(mark) == skip_seat {
                continue;
            }
            if let Seat::Human(Human { out: Some(out), .. }) = &self.seats[index(mark)]
                && !out.send(frame.clone())
            {
                self.dropped.push(mark);
            }
        }
        let before = self.watchers.len();
        self.watchers.retain(|player, watcher| {
            Some(*player) == skip_watcher || watcher.out.send(frame.clone())
        });
        if self.watchers.len() != before {
            self.watchers_changed = true;
        }
    }

    fn variant(&self) -> Variant {
        self.board.variant()
    }

    fn watcher_count(&self) -> u32 {
        u32::try_from(self.watchers.len()).unwrap_or(u32::MAX)
    }

    fn clocks(&self, now: Instant) -> Option<noughts_protocol::Clocks> {
        self.clock.as_ref().map(|clock| clock.snapshot(now))
    }

    /// The full snapshot for one recipient.
    fn snapshot(
        &self,
        you: Option<Mark>,
        id: Option<noughts_protocol::RequestId>,
        now: Instant,
    ) -> Frame {
        let state = GameState {
            game: self.id,
            variant: self.board.variant(),
            kind: self.kind,
            x: self.seats[0].info(self.variant()),
            o: self.seats[1].info(self.variant()),
            you,
            seq: self.seq,
            board: self.board.to_compact(),
            moves: self.moves.clone(),
            to_move: self.result.is_none().then(|| self.board.to_move()),
            clock: self.clock.as_ref().map(|c| c.spec),
            clocks: self.clocks(now),
            result: self.result.clone(),
            watchers: self.watcher_count(),
            chat: self.chat.iter().cloned().collect(),
            rematch_of: self.rematch_of,
            rated: self.rated,
        };
        frame(id, ServerMessage::GameState(Box::new(state)))
    }

    /// Updates the game's lobby entry while it is live and listed.
    pub(super) fn list(&self) {
        if !self.listed || self.result.is_some() {
            return;
        }
        self.shared.lobby.update_game(GameInfo {
            game: self.id,
            variant: self.board.variant(),
            kind: self.kind,
            x: self.seats[0].info(self.variant()),
            o: self.seats[1].info(self.variant()),
            moves: u32::try_from(self.moves.len()).unwrap_or(u32::MAX),
            watchers: self.watcher_count(),
            clock: self.clock.as_ref().map(|c| c.spec),
            rated: self.rated,
        });
    }
}

/// Answers a refused request.
fn refuse(from: &Requester, code: ErrorCode, message: impl Into<String>) {
    from.out.error(from.id.clone(), code, message);
}
