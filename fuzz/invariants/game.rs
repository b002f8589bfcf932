//! What must hold for any sequence of inputs to a game's rules (`noughts_server::rules`): shared
//! by the `game` fuzz target and the stable-toolchain test `tests/tests/fuzz_game.rs`.
//!
//! The bytes pick a table (variant, seats human or AI, timed or not, a new game or one restored
//! from stored moves), then a sequence of inputs: moves (some of which the store refuses), AI
//! moves (some stale or illegal), resignations, rematch requests, chat, watcher counts, players
//! leaving and returning, time passing, timers firing, the server stopping. After every input:
//!
//! - `seq` only grows, and every update carries the next one: no gaps, no repeats;
//! - an input that is refused changes nothing and sends nothing, with the documented code;
//! - the board is legal and is the move list played from the empty board; it is over exactly
//!   when the result says a line or a draw ended the game;
//! - a finished game takes no moves (`game_over`), and no clock runs in it;
//! - a clock never shows more than its start plus its increments, and only the side to move's
//!   runs, and only while that side can know it is its move;
//! - a `watchers` update never follows the last one by less than the documented spacing, and
//!   the snapshot's count is always exact;
//! - whatever is due is also what the deadline said (the actor never misses a timer).

#[path = "game_agree.rs"]
mod agree;
#[path = "game_input.rs"]
mod input;

use std::time::Instant;

use arbitrary::Unstructured;
use noughts_engine::{Board, Mark, Outcome, cells_of};
use noughts_protocol::{
    ClockSpec, EndReason, ErrorCode, GameId, OfferKind, PlayerId, SeatInfo, ServerMessage,
};
use noughts_server::rules::{
    CHAT_HISTORY, Decision, Due, EndRecord, Refusal, Rematch, Rules, Speaker, Update,
    WATCHERS_EVERY,
};

pub use input::{Input, Setup};
use input::{MAX_STORED_CLOCK_MS, O_PLAYER, X_PLAYER};

/// Inputs per game, at most.
const MAX_INPUTS: usize = 200;

/// Plays the bytes as a game: a setup, then inputs until the bytes run out.
pub fn check_bytes(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(setup) = Setup::arbitrary(&mut u) else {
        return;
    };
    let variant = setup.table.variant;
    let mut inputs = Vec::new();
    while !u.is_empty() && inputs.len() < MAX_INPUTS {
        match Input::arbitrary(&mut u, variant) {
            Ok(input) => inputs.push(input),
            Err(_) => break,
        }
    }
    check_inputs(setup, &inputs);
}

/// Plays `inputs` on a game set up by `setup`, checking the invariants after each. Returns the
/// game as it ends up (or `None` if the stored moves could not be restored).
pub fn check_inputs(setup: Setup, inputs: &[Input]) -> Option<Rules> {
    let mut game = Checked::new(setup)?;
    for &input in inputs {
        if game.closed {
            break;
        }
        game.step(input);
    }
    Some(game.rules)
}

/// A game under check, and what the checks remember between inputs.
struct Checked {
    rules: Rules,
    /// The time the rules see.
    now: Instant,
    /// The time control, to bound the clocks.
    spec: Option<ClockSpec>,
    /// When the latest `watchers` update went out.
    watchers_sent: Option<Instant>,
    /// The latest count set, which snapshots must show.
    watchers: usize,
    /// The next rematch's id.
    next_game: u64,
    /// The move list played so far from the empty board, and how many moves that is.
    replayed: (Board, usize),
    /// The game closed: nothing more happens.
    closed: bool,
    /// Moves were just taken back by agreement: the one way the move list may shrink.
    took_back: bool,
}

impl Checked {
    fn new(setup: Setup) -> Option<Checked> {
        let now = Instant::now();
        let spec = setup.table.clock;
        let variant = setup.table.variant;
        let (rules, restored) = match setup.restored {
            Some(stored) => (
                Rules::restore(setup.table, &stored.moves, stored.seq, now).ok()?,
                true,
            ),
            None => (Rules::new(setup.table, setup.connected), false),
        };
        let mut game = Checked {
            rules,
            now,
            spec,
            watchers_sent: None,
            watchers: 0,
            next_game: 2,
            closed: false,
            took_back: false,
            replayed: (Board::new(variant), 0),
        };
        if restored {
            for mark in [Mark::X, Mark::O] {
                assert!(
                    game.rules.clocks(now).is_none_or(|c| c.running.is_none()),
                    "a restored clock runs"
                );
                if game.rules.player(mark).is_some() {
                    assert!(!game.rules.connected(mark), "a restored player is present");
                }
            }
            // As the actor does: a restored board that is over ends the game.
            let before = game.rules.clone();
            let updates = match game.rules.board_end() {
                Some(end) => game.conclude(&end),
                None => Vec::new(),
            };
            game.check_updates(&before, &updates);
        } else {
            game.rules.open(setup.watchers, now);
            game.watchers = setup.watchers;
        }
        game.check_state(None);
        Some(game)
    }

    fn step(&mut self, input: Input) {
        let before = self.rules.clone();
        let now = self.now;
        let updates = match input {
            Input::Wait(time) => {
                self.now += time;
                Vec::new()
            }
            Input::Timer => {
                if let Some(at) = self.rules.deadline() {
                    self.now = self.now.max(at);
                }
                let mut updates = match self.rules.due(self.now) {
                    Some(Due::Close) => {
                        assert!(self.rules.is_over(), "a live game closes");
                        self.closed = true;
                        Vec::new()
                    }
                    Some(Due::End(end)) => self.conclude(&end),
                    None => Vec::new(),
                };
                updates.extend(self.settle());
                updates
            }
            Input::Move {
                player,
                cell,
                stored,
            } => self.on_move(&before, player, cell, stored),
            Input::Ai { back, cell, stored } => self.on_ai(&before, back, cell, stored),
            Input::Resign { player } => match self.rules.resign(player) {
                Ok(end) => {
                    assert!(!before.is_over(), "a finished game was resigned");
                    assert_eq!(
                        end.winner,
                        before.mark_of(player).map(Mark::opponent),
                        "the resigner won"
                    );
                    self.conclude(&end)
                }
                Err(refused) => {
                    let expected = if before.mark_of(player).is_none() {
                        ErrorCode::NotAPlayer
                    } else {
                        ErrorCode::GameOver
                    };
                    self.refused(&before, &refused, expected)
                }
            },
            Input::Rematch { player, starts } => self.rematch(&before, player, starts),
            Input::Chat { player, watching } => {
                match self.rules.chat(
                    player,
                    watching,
                    Speaker {
                        name: "someone".into(),
                        guest: false,
                        bot: false,
                    },
                    "hello".into(),
                ) {
                    Ok(update) => {
                        assert!(
                            watching || before.mark_of(player).is_some(),
                            "a stranger chatted"
                        );
                        vec![update]
                    }
                    Err(refused) => self.refused(&before, &refused, ErrorCode::NotAPlayer),
                }
            }
            Input::Watchers(count) => {
                self.rules.watchers_changed(count);
                self.watchers = count;
                Vec::new()
            }
            Input::Settle => self.settle(),
            Input::Leave(mark) => {
                let updates: Vec<Update> = self.rules.seat_left(mark, now).into_iter().collect();
                if before.player(mark).is_none() {
                    assert!(updates.is_empty(), "an AI left");
                }
                assert!(!self.rules.connected(mark) || before.player(mark).is_none());
                updates
            }
            Input::Return(mark) => {
                let returned = self.rules.seat_returned(mark, now);
                if let Some(update) = &returned.update {
                    assert_eq!(update.skip, Some(mark), "the returning player is told");
                }
                if before.player(mark).is_some() {
                    assert!(self.rules.connected(mark), "a returned player is away");
                    assert!(
                        returned.snapshot || before.is_over(),
                        "a player returned to a live game without its snapshot"
                    );
                }
                returned.update.into_iter().collect()
            }
            Input::Agree {
                player,
                what,
                stored,
            } => self.agree(&before, player, what, stored),
            Input::Abort => match self.rules.abort() {
                Some(end) => {
                    assert!(!before.is_over());
                    assert_eq!((end.winner, end.reason), (None, EndReason::Aborted));
                    self.conclude(&end)
                }
                None => {
                    assert!(before.is_over(), "a live game cannot be aborted");
                    Vec::new()
                }
            },
        };
        self.check_updates(&before, &updates);
        self.check_state(Some(&before));
    }

    /// A person's move: played when it is theirs to make and legal, refused with the right code
    /// otherwise.
    fn on_move(
        &mut self,
        before: &Rules,
        player: PlayerId,
        cell: usize,
        stored: bool,
    ) -> Vec<Update> {
        let now = self.now;
        match self.rules.try_move(player, cell, now) {
            Ok(decision) => {
                let mark = before.mark_of(player).expect("a stranger moved");
                assert!(!before.is_over(), "a finished game took a move");
                assert_eq!(before.board().to_move(), mark, "moved out of turn");
                self.carry(decision, stored)
            }
            Err(refused) => {
                let expected = if before.mark_of(player).is_none() {
                    ErrorCode::NotAPlayer
                } else if before.is_over() {
                    ErrorCode::GameOver
                } else if before.mark_of(player) != Some(before.board().to_move()) {
                    ErrorCode::NotYourTurn
                } else {
                    assert!(before.board().play(cell).is_err(), "a legal move refused");
                    ErrorCode::IllegalMove
                };
                self.refused(before, &refused, expected)
            }
        }
    }

    /// An AI's move for ply `ply - back`: played only when current, and ignored when stale.
    fn on_ai(&mut self, before: &Rules, back: u32, cell: usize, stored: bool) -> Vec<Update> {
        let now = self.now;
        let ply = self.rules.board().ply().saturating_sub(back);
        match self.rules.try_ai_move(ply, cell, now) {
            Ok(Some(decision)) => {
                assert!(!before.is_over(), "a finished game took an AI move");
                assert!(before.ai_to_move().is_some(), "an AI moved for a person");
                assert_eq!(ply, before.board().ply(), "a stale AI move was played");
                self.carry(decision, stored)
            }
            Ok(None) => {
                assert!(
                    before.is_over()
                        || before.ai_to_move().is_none()
                        || ply != before.board().ply(),
                    "a current AI move was ignored"
                );
                Vec::new()
            }
            Err(_) => {
                assert!(
                    before.board().play(cell).is_err(),
                    "a legal AI move refused"
                );
                Vec::new()
            }
        }
    }

    /// A refused input: the expected code, and nothing changed.
    fn refused(&self, before: &Rules, refused: &Refusal, expected: ErrorCode) -> Vec<Update> {
        assert_eq!(refused.code, expected, "{}", refused.message);
        assert!(!refused.message.is_empty(), "a refusal without a reason");
        assert_eq!(&self.rules, before, "a refused input changed the game");
        Vec::new()
    }

    /// An accepted move, stored or not.
    fn carry(&mut self, decision: Decision, stored: bool) -> Vec<Update> {
        match decision {
            Decision::Play(pending) => {
                let record = pending.record;
                assert_eq!(record.seq, self.rules.seq() + 1);
                assert_eq!(record.ply, self.rules.board().ply());
                if let Some(ending) = record.ending {
                    assert_eq!(ending.seq, record.seq + 1);
                }
                // A side's first move is not timed (and earns nothing); every later one earns
                // its increment.
                if let (Some(left), Some(spec)) = (record.clock_ms, self.spec) {
                    assert!(
                        left >= spec.increment_ms || record.ply < 2,
                        "a move left less than its increment"
                    );
                    if record.ply < 2 {
                        assert_eq!(left, spec.initial_ms, "a first move was timed");
                    }
                }
                if !stored {
                    // The store refused it: it is not played.
                    return Vec::new();
                }
                let updates = self.rules.commit_move(pending, self.now);
                let Some(Update {
                    message: ServerMessage::Moved { mark, cell, .. },
                    reply: true,
                    skip: None,
                    watchers_only: false,
                }) = updates.first()
                else {
                    panic!("a committed move was not announced: {updates:?}");
                };
                assert_eq!((*mark, *cell), (record.mark, record.cell));
                assert_eq!(updates.len(), 1 + usize::from(record.ending.is_some()));
                updates
            }
            Decision::End(end) => {
                assert_eq!(end.reason, EndReason::Timeout);
                self.conclude(&end)
            }
        }
    }

    /// The end is stored: the game is over.
    fn conclude(&mut self, end: &EndRecord) -> Vec<Update> {
        assert_eq!(end.seq, self.rules.seq() + 1);
        let update = self.rules.conclude(end, true, self.now);
        assert!(update.is_some(), "a stored end was not announced");
        assert!(self.rules.is_over());
        // Concluding twice changes nothing.
        let again = self.rules.clone();
        assert_eq!(self.rules.conclude(end, true, self.now), None);
        assert_eq!(self.rules, again);
        update.into_iter().collect()
    }

    fn settle(&mut self) -> Vec<Update> {
        let update = self.rules.flush_watchers(self.now);
        if update.is_some() {
            if let Some(sent) = self.watchers_sent {
                assert!(
                    self.now >= sent + WATCHERS_EVERY,
                    "watchers updates too close"
                );
            }
            self.watchers_sent = Some(self.now);
        }
        // One per batch.
        assert_eq!(self.rules.flush_watchers(self.now), None);
        update.into_iter().collect()
    }

    fn rematch(&mut self, before: &Rules, player: PlayerId, starts: bool) -> Vec<Update> {
        match self.rules.ask_rematch(player) {
            Ok(Rematch::Offer(update)) => {
                assert!(before.is_over() && before.rematch().is_none());
                vec![update]
            }
            Ok(Rematch::Repeat(message)) => {
                assert_eq!(&self.rules, before, "a repeated offer changed the game");
                let ServerMessage::RematchOffered { seq, .. } = message else {
                    panic!("a repeated offer is {message:?}");
                };
                assert_eq!(seq, self.rules.seq(), "a repeated offer takes a new seq");
                Vec::new()
            }
            Ok(Rematch::Start) => {
                assert_eq!(
                    &self.rules, before,
                    "accepting changed the game before it started"
                );
                assert!(before.is_over() && before.rematch().is_none());
                if starts {
                    self.rules.rematch_started(GameId(self.next_game));
                    self.next_game += 1;
                    assert!(self.rules.rematch().is_some());
                }
                Vec::new()
            }
            Err(refused) => {
                let expected = if before.mark_of(player).is_none() {
                    ErrorCode::NotAPlayer
                } else if !before.is_over() {
                    ErrorCode::GameNotOver
                } else {
                    assert!(before.rematch().is_some());
                    ErrorCode::GameOver
                };
                self.refused(before, &refused, expected)
            }
        }
    }

    /// Every update takes the next `seq`, is about this game, and says what the game now is.
    fn check_updates(&self, before: &Rules, updates: &[Update]) {
        let mut seq = before.seq();
        for update in updates {
            let (game, update_seq) = match &update.message {
                ServerMessage::Moved { game, seq, .. }
                | ServerMessage::GameOver { game, seq, .. }
                | ServerMessage::Presence { game, seq, .. }
                | ServerMessage::Watchers { game, seq, .. }
                | ServerMessage::Chat { game, seq, .. }
                | ServerMessage::RematchOffered { game, seq, .. }
                | ServerMessage::Offered { game, seq, .. }
                | ServerMessage::Declined { game, seq, .. }
                | ServerMessage::Withdrawn { game, seq, .. }
                | ServerMessage::TakenBack { game, seq, .. } => (*game, *seq),
                other => panic!("not an update: {other:?}"),
            };
            assert_eq!(game, self.rules.id());
            assert_eq!(update_seq, seq + 1, "seq must take the next number");
            seq = update_seq;
            match &update.message {
                ServerMessage::Moved { board, to_move, .. } => {
                    assert_eq!(
                        to_move.is_none(),
                        updates
                            .iter()
                            .any(|u| matches!(u.message, ServerMessage::GameOver { .. }))
                    );
                    assert_eq!(board, &self.rules.board().to_compact());
                }
                ServerMessage::GameOver { result, clocks, .. } => {
                    assert_eq!(Some(result), self.rules.result());
                    assert!(clocks.is_none_or(|c| c.running.is_none()));
                }
                ServerMessage::TakenBack {
                    board,
                    moves,
                    to_move,
                    ..
                } => {
                    assert_eq!(board, &self.rules.board().to_compact());
                    assert_eq!(moves.as_slice(), self.rules.moves());
                    assert_eq!(*to_move, self.rules.board().to_move());
                }
                ServerMessage::Offered { by, offer, .. } => {
                    assert_eq!(self.rules.offer(), Some((*by, *offer)));
                }
                ServerMessage::Declined { offer, .. } | ServerMessage::Withdrawn { offer, .. } => {
                    if *offer == OfferKind::Rematch {
                        assert_eq!(self.rules.rematch_offer(), None);
                    } else {
                        assert_eq!(self.rules.offer(), None);
                    }
                }
                ServerMessage::Watchers { count, .. } => {
                    assert_eq!(
                        usize::try_from(*count).ok(),
                        Some(self.watchers.min(u32::MAX as usize))
                    );
                }
                _ => {}
            }
        }
        assert_eq!(self.rules.seq(), seq, "seq moved without an update");
    }

    /// What holds of any game at any time. The position is checked again only when the game
    /// changed.
    fn check_state(&mut self, before: Option<&Rules>) {
        if before.is_none_or(|before| *before != self.rules) {
            self.check_position();
        }
        let took_back = std::mem::take(&mut self.took_back);
        let rules = &self.rules;
        let board = rules.board();
        if let Some(before) = before {
            assert!(rules.seq() >= before.seq(), "seq went back");
            assert!(
                rules.moves().len() >= before.moves().len() || took_back,
                "a move was undone"
            );
            assert!(
                rules.is_over() || !before.is_over(),
                "a finished game came back"
            );
            if before.is_over() {
                assert_eq!(
                    rules.board(),
                    before.board(),
                    "a finished game's board changed"
                );
            }
            for mark in [Mark::X, Mark::O] {
                assert!(
                    rules.grace_left(mark) <= before.grace_left(mark),
                    "grace grew"
                );
            }
        }

        // Clocks: bounded by the start and the increments; only the side to move's runs.
        if let Some(spec) = self.spec {
            let clocks = rules.clocks(self.now).expect("a timed game without clocks");
            let moves = u64::try_from(rules.moves().len()).unwrap_or(u64::MAX);
            let start = spec.initial_ms.max(MAX_STORED_CLOCK_MS);
            let most = start + spec.increment_ms * moves.div_ceil(2);
            assert!(clocks.x_ms <= most && clocks.o_ms <= most, "{clocks:?}");
            if let Some(running) = clocks.running {
                assert!(!rules.is_over(), "a clock runs in a finished game");
                assert_eq!(running, board.to_move(), "the wrong side's clock runs");
                assert!(
                    rules.connected(running),
                    "a clock runs for an absent player"
                );
            }
        } else {
            assert_eq!(rules.clocks(self.now), None);
        }

        // The actor sleeps until the deadline: nothing may be due before it.
        if rules.due(self.now).is_some() {
            assert!(
                rules.deadline().is_some_and(|at| at <= self.now),
                "due before the deadline"
            );
        }
    }

    /// The position and the snapshot: what can only change when the game does.
    fn check_position(&mut self) {
        let rules = &self.rules;
        let board = rules.board();

        // The board is the move list played from the empty board, and reads back as itself.
        let moves = rules.moves();
        if moves.len() < self.replayed.1 {
            // Moves were taken back: play the list again from the start.
            self.replayed = (Board::new(board.variant()), 0);
        }
        while let Some(&cell) = moves.get(self.replayed.1) {
            self.replayed.0 = self
                .replayed
                .0
                .play(cell)
                .expect("an illegal move in the list");
            self.replayed.1 += 1;
        }
        assert_eq!(self.replayed, (board, moves.len()));
        assert_eq!(usize::try_from(board.ply()).ok(), Some(rules.moves().len()));
        assert_eq!(
            Board::parse(board.variant(), &board.to_compact()),
            Ok(board)
        );
        let count = |mark| {
            (0..board.variant().cells())
                .filter(|&cell| board.get(cell) == Some(mark))
                .count()
        };
        let (x, o) = (count(Mark::X), count(Mark::O));
        assert!(x == o || x == o + 1, "{x} crosses and {o} noughts");

        // Over exactly when the result says so, for the reason the board gives.
        match (board.outcome(), rules.result()) {
            (None, None) => {}
            (None, Some(result)) => assert!(
                !matches!(result.reason, EndReason::Line | EndReason::Draw),
                "{result:?} on a live board"
            ),
            (Some(Outcome::Win { mark, cells }), Some(result)) => {
                assert_eq!(result.reason, EndReason::Line);
                assert_eq!(result.winner, Some(mark));
                assert_eq!(result.cells, cells_of(cells).collect::<Vec<_>>());
            }
            (Some(Outcome::Draw), Some(result)) => {
                assert_eq!((result.reason, result.winner), (EndReason::Draw, None));
            }
            (Some(outcome), None) => panic!("{outcome:?} but the game goes on"),
        }
        if rules.is_over() {
            assert_eq!(rules.ai_to_move(), None, "an AI thinks in a finished game");
            for player in [X_PLAYER, O_PLAYER] {
                if rules.mark_of(player).is_some() {
                    let cell = board.legal_moves().next().unwrap_or(0);
                    let refused = rules.try_move(player, cell, self.now).err();
                    assert_eq!(refused.map(|r| r.code), Some(ErrorCode::GameOver));
                }
            }
        }

        // The snapshot agrees with the game.
        let seat = || SeatInfo {
            name: "someone".into(),
            player: None,
            level: None,
            connected: true,
            rating: None,
            guest: false,
            bot: false,
        };
        let state = rules.state(None, [seat(), seat()], self.now);
        assert_eq!(state.seq, rules.seq());
        assert_eq!(state.moves, rules.moves());
        assert_eq!(state.board, board.to_compact());
        assert_eq!(state.to_move.is_none(), rules.is_over());
        assert_eq!(state.result.as_ref(), rules.result());
        assert_eq!(
            usize::try_from(state.watchers).ok(),
            Some(self.watchers.min(u32::MAX as usize))
        );
        assert!(state.chat.len() <= CHAT_HISTORY);
    }
}
