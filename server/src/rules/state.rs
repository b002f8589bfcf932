//! One game's rules and state ([`Rules`]): the board, moves, `seq`, clocks, result, presence,
//! chat, rematch offers and the watcher count, changed only by its methods.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use noughts_engine::{Board, MoveError, Outcome, cells_of};
use noughts_protocol::{
    ChatLine, ClockSpec, Clocks, EndReason, ErrorCode, GameId, GameKind, GameResult, GameState,
    Level, Mark, OfferKind, PlayerId, SeatInfo, ServerMessage,
};

use super::seat::{Presence, index};
use super::updates::{
    CHAT_HISTORY, Decision, Due, EndRecord, MoveRecord, PendingMove, Rematch, Sitter, Speaker,
    Table, Update, WATCHERS_EVERY, refused,
};
use crate::error::Refusal;
use crate::rules::clock::Clock;

mod offers;
mod presence;

/// One game's rules and state.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    id: GameId,
    kind: GameKind,
    rated: bool,
    /// The position; the engine checks every move against it.
    board: Board,
    /// Cells in the order played, for snapshots.
    moves: Vec<usize>,
    /// The number of the latest update; every update takes the next one.
    seq: u64,
    /// X's seat, then O's.
    seats: [Sitter<Presence>; 2],
    /// The time control, if the game is timed.
    clock: Option<Clock>,
    /// How it ended, once it has.
    result: Option<GameResult>,
    /// How many watch, as of the latest change.
    watchers: u32,
    /// The count changed since the latest `watchers` update.
    watchers_pending: bool,
    /// When the latest `watchers` update went out.
    watchers_sent: Option<Instant>,
    /// The latest chat lines, for snapshots.
    chat: VecDeque<ChatLine>,
    /// The side that offered a rematch and awaits the answer.
    rematch_offer: Option<Mark>,
    /// A draw offer or takeback request awaiting the other side's answer, and who made it.
    offer: Option<(Mark, OfferKind)>,
    /// The rematch, once it started.
    rematch: Option<GameId>,
    /// The game this one is a rematch of, for snapshots.
    rematch_of: Option<GameId>,
    /// How long a finished game stays open.
    linger: Duration,
    /// How long a player must have been away before the opponent may claim the game.
    claim_after: Duration,
    /// When a finished game closes.
    close_at: Option<Instant>,
    /// In a timed game, how long a side has for its first move.
    first_move: Duration,
    /// While a first move is awaited in a timed game, when the game is aborted without it.
    first_move_by: Option<Instant>,
}

impl Rules {
    /// A new game; `connected` says which seats' players have a connection.
    pub fn new(table: Table, connected: [bool; 2]) -> Rules {
        let seats = [0, 1].map(|seat| {
            table.seats[seat].map(|player| Presence {
                player,
                connected: connected[seat],
                away_since: None,
                grace_left: table.grace,
                missed_end: false,
            })
        });
        Rules {
            id: table.id,
            kind: table.kind,
            rated: table.rated,
            board: Board::new(table.variant),
            moves: Vec::new(),
            seq: 0,
            seats,
            clock: table.clock.map(Clock::new),
            result: None,
            watchers: 0,
            watchers_pending: false,
            watchers_sent: None,
            chat: VecDeque::new(),
            rematch_offer: None,
            offer: None,
            rematch: None,
            rematch_of: table.rematch_of,
            linger: table.linger,
            claim_after: table.claim_after,
            close_at: None,
            first_move: table.first_move,
            first_move_by: None,
        }
    }

    /// A game as the store kept it: its moves (each with the mover's time left), its `seq`, and
    /// its players away since `now`. Nothing runs; time the server was down is not charged.
    pub fn restore(
        table: Table,
        moves: &[(usize, Option<u64>)],
        seq: u64,
        now: Instant,
    ) -> Result<Rules, String> {
        let spec = table.clock;
        let mut rules = Rules::new(table, [false; 2]);
        let mut left = [None, None];
        for &(cell, clock_ms) in moves {
            let mark = rules.board.to_move();
            rules.board = rules
                .board
                .play(cell)
                .map_err(|err| format!("stored move {cell}: {err}"))?;
            rules.moves.push(cell);
            if clock_ms.is_some() {
                left[index(mark)] = clock_ms;
            }
        }
        rules.clock = spec.map(|spec| Clock::restored(spec, left));
        rules.await_first_move(now);
        rules.seq = seq;
        for seat in &mut rules.seats {
            if let Sitter::Human(presence) = seat {
                presence.away_since = Some(now);
            }
        }
        Ok(rules)
    }

    pub fn id(&self) -> GameId {
        self.id
    }

    pub fn kind(&self) -> GameKind {
        self.kind
    }

    pub fn rated(&self) -> bool {
        self.rated
    }

    pub fn board(&self) -> Board {
        self.board
    }

    pub fn moves(&self) -> &[usize] {
        &self.moves
    }

    /// The `seq` of the latest update.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    pub fn watchers(&self) -> u32 {
        self.watchers
    }

    pub fn clock_spec(&self) -> Option<ClockSpec> {
        self.clock.as_ref().map(|clock| clock.spec)
    }

    /// The clocks at `now`, in a timed game.
    pub fn clocks(&self, now: Instant) -> Option<Clocks> {
        self.clock.as_ref().map(|clock| clock.snapshot(now))
    }

    /// The rematch, once it started.
    pub fn rematch(&self) -> Option<GameId> {
        self.rematch
    }

    /// The seat `player` sits in.
    pub fn mark_of(&self, player: PlayerId) -> Option<Mark> {
        [Mark::X, Mark::O]
            .into_iter()
            .find(|&mark| self.player(mark) == Some(player))
    }

    /// The person in `mark`'s seat.
    pub fn player(&self, mark: Mark) -> Option<PlayerId> {
        match &self.seats[index(mark)] {
            Sitter::Human(presence) => Some(presence.player),
            Sitter::Ai(_) => None,
        }
    }

    /// Whether `mark`'s seat is a person with a connection attached.
    pub fn connected(&self, mark: Mark) -> bool {
        match &self.seats[index(mark)] {
            Sitter::Human(presence) => presence.connected,
            Sitter::Ai(_) => true,
        }
    }

    /// What is left of the grace of `mark`'s seat, for a person.
    pub fn grace_left(&self, mark: Mark) -> Option<Duration> {
        match &self.seats[index(mark)] {
            Sitter::Human(presence) => Some(presence.grace_left),
            Sitter::Ai(_) => None,
        }
    }

    /// The AI seat whose move it is, with the board to search, while the game goes on.
    pub fn ai_to_move(&self) -> Option<(Level, Board)> {
        match self.seats[index(self.board.to_move())] {
            Sitter::Ai(level) if self.result.is_none() => Some((level, self.board)),
            _ => None,
        }
    }

    /// The full snapshot for one recipient; the shell supplies the seats as people see them.
    pub fn state(&self, you: Option<Mark>, seats: [SeatInfo; 2], now: Instant) -> GameState {
        let [x, o] = seats;
        GameState {
            game: self.id,
            variant: self.board.variant(),
            kind: self.kind,
            x,
            o,
            you,
            seq: self.seq,
            board: self.board.to_compact(),
            moves: self.moves.clone(),
            to_move: self.result.is_none().then(|| self.board.to_move()),
            clock: self.clock_spec(),
            clocks: self.clocks(now),
            result: self.result.clone(),
            watchers: self.watchers,
            // The spectators' chat is for the watchers: a player's snapshot leaves it out.
            chat: self
                .chat
                .iter()
                .filter(|line| you.is_none() || line.mark.is_some())
                .cloned()
                .collect(),
            rematch_of: self.rematch_of,
            rated: self.rated,
            offer: self.pending_offer(),
            away: self.away(now),
        }
    }

    /// The game opens with `watchers` watching (their count goes out in the first snapshots, so
    /// no `watchers` update is owed), and the first side's time starts (if it can know).
    pub fn open(&mut self, watchers: usize, now: Instant) {
        self.watchers = u32::try_from(watchers).unwrap_or(u32::MAX);
        self.start_turn(now);
        self.await_first_move(now);
    }

    /// In a timed game whose side to move has not moved yet, that side's first move is awaited
    /// from `now` (the game is aborted without it); otherwise nothing is.
    pub(super) fn await_first_move(&mut self, now: Instant) {
        self.first_move_by =
            (self.clock.is_some() && self.result.is_none() && self.board.ply() < 2)
                .then(|| now + self.first_move);
    }

    /// A move by `player` at `cell`: refused, or what to store (nothing changes yet).
    pub fn try_move(
        &self,
        player: PlayerId,
        cell: usize,
        now: Instant,
    ) -> Result<Decision, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(ErrorCode::NotAPlayer, "only the game's players may move");
        };
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        if self.board.to_move() != mark {
            return refused(ErrorCode::NotYourTurn, "it is the other side's move");
        }
        if let Err(err) = self.board.play(cell) {
            return refused(ErrorCode::IllegalMove, err.to_string());
        }
        Ok(self.decide(mark, cell, now))
    }

    /// The AI seat's move for ply `ply`: `Ok(None)` if it comes too late (the game moved on),
    /// an error if the cell is illegal.
    pub fn try_ai_move(
        &self,
        ply: u32,
        cell: usize,
        now: Instant,
    ) -> Result<Option<Decision>, MoveError> {
        let mover = self.board.to_move();
        if self.result.is_some()
            || self.board.ply() != ply
            || !matches!(self.seats[index(mover)], Sitter::Ai(_))
        {
            return Ok(None);
        }
        self.board.play(cell)?;
        Ok(Some(self.decide(mover, cell, now)))
    }

    /// The move the store holds at `ply` from an earlier try whose answer was lost (the database
    /// stopped as it committed): it stands, in time as it was when first stored. `None` if the
    /// game has moved on or the cell is not legal here.
    pub fn stored_move(&self, ply: u32, cell: usize, now: Instant) -> Option<PendingMove> {
        if self.result.is_some() || self.board.ply() != ply || self.board.play(cell).is_err() {
            return None;
        }
        let mark = self.board.to_move();
        let mut clock = self.clock.clone();
        if let Some(clock) = &mut clock
            && self.board.ply() >= 2
        {
            clock.charge_move(mark, now);
        }
        Some(self.pending(mark, cell, clock, now))
    }

    /// A legal move by `mark`: charges its clock and sees whether it ends the game.
    fn decide(&self, mark: Mark, cell: usize, now: Instant) -> Decision {
        let mut clock = self.clock.clone();
        // A side's first move is not timed: its clock starts after both sides have moved once.
        if let Some(clock) = &mut clock
            && self.board.ply() >= 2
            && !clock.charge_move(mark, now)
        {
            return Decision::End(self.end_record(Some(mark.opponent()), EndReason::Timeout, 0));
        }
        Decision::Play(self.pending(mark, cell, clock, now))
    }

    /// `mark`'s legal move at `cell`, its clock charged as `clock`: whether it ends the game, and
    /// what to store.
    fn pending(&self, mark: Mark, cell: usize, clock: Option<Clock>, now: Instant) -> PendingMove {
        let board = self.board.play_unchecked(cell);
        let ending = match board.outcome() {
            Some(Outcome::Win { mark, cells }) => Some(EndRecord {
                seq: self.seq + 2,
                winner: Some(mark),
                reason: EndReason::Line,
                cells,
            }),
            Some(Outcome::Draw) => Some(EndRecord {
                seq: self.seq + 2,
                winner: None,
                reason: EndReason::Draw,
                cells: 0,
            }),
            None => None,
        };
        let record = MoveRecord {
            mark,
            cell,
            ply: self.board.ply(),
            seq: self.seq + 1,
            clock_ms: clock.as_ref().map(|clock| clock.left_ms(mark, now)),
            ending,
        };
        PendingMove {
            record,
            board,
            clock,
        }
    }

    /// The store kept the move: it is played. `moved` answers the mover; `game_over` follows if
    /// the move ended the game. A move decided on an older state is dropped.
    pub fn commit_move(&mut self, pending: PendingMove, now: Instant) -> Vec<Update> {
        let record = pending.record;
        if self.result.is_some() || record.seq != self.seq + 1 || record.ply != self.board.ply() {
            return Vec::new();
        }
        self.board = pending.board;
        self.clock = pending.clock;
        self.moves.push(record.cell);
        self.rematch_offer = None;
        // A pending draw offer or takeback request lapses with the next move.
        self.offer = None;
        if record.ending.is_none() {
            self.start_turn(now);
        }
        self.await_first_move(now);
        self.seq += 1;
        let moved = ServerMessage::Moved {
            game: self.id,
            seq: self.seq,
            mark: record.mark,
            cell: record.cell,
            board: self.board.to_compact(),
            to_move: record.ending.is_none().then(|| self.board.to_move()),
            clocks: self.clocks(now),
        };
        let mut updates = vec![Update::to_all(moved, true)];
        if let Some(ending) = &record.ending {
            updates.extend(self.conclude(ending, false, now));
        }
        updates
    }

    /// An end to store now: its `game_over` takes the next `seq`.
    pub fn end_record(&self, winner: Option<Mark>, reason: EndReason, cells: u64) -> EndRecord {
        EndRecord {
            seq: self.seq + 1,
            winner,
            reason,
            cells,
        }
    }

    /// `player` resigns: refused, or the end to store (then [`Rules::conclude`]).
    pub fn resign(&self, player: PlayerId) -> Result<EndRecord, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(ErrorCode::NotAPlayer, "only the game's players may resign");
        };
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        Ok(self.end_record(Some(mark.opponent()), EndReason::Resign, 0))
    }

    /// The game ends without a move (the server stops and keeps nothing).
    pub fn abort(&self) -> Option<EndRecord> {
        self.result
            .is_none()
            .then(|| self.end_record(None, EndReason::Aborted, 0))
    }

    /// A live game whose board is already over (a restored game whose end the store lost).
    pub fn board_end(&self) -> Option<EndRecord> {
        if self.result.is_some() {
            return None;
        }
        match self.board.outcome()? {
            Outcome::Win { mark, cells } => {
                Some(self.end_record(Some(mark), EndReason::Line, cells))
            }
            Outcome::Draw => Some(self.end_record(None, EndReason::Draw, 0)),
        }
    }

    /// The end is stored: the clocks stop and the game is over. Returns `game_over` (which
    /// answers the request when `reply`), or nothing if the game was already over or the end was
    /// decided on an older state.
    pub fn conclude(&mut self, end: &EndRecord, reply: bool, now: Instant) -> Option<Update> {
        if self.result.is_some() || end.seq != self.seq + 1 {
            return None;
        }
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
        let result = GameResult {
            winner: end.winner,
            reason: end.reason,
            cells: cells_of(end.cells).collect(),
        };
        self.result = Some(result.clone());
        self.seq += 1;
        for seat in &mut self.seats {
            if let Sitter::Human(presence) = seat
                && !presence.connected
            {
                presence.missed_end = true;
            }
        }
        self.close_at = Some(now + self.linger);
        let message = ServerMessage::GameOver {
            game: self.id,
            seq: self.seq,
            board: self.board.to_compact(),
            result,
            ratings: None,
            clocks: self.clocks(now),
        };
        Some(Update::to_all(message, reply))
    }

    /// `mark`'s player did not get the `game_over` (their connection failed as it went out).
    pub fn missed_end(&mut self, mark: Mark) {
        if let Sitter::Human(presence) = &mut self.seats[index(mark)]
            && self.result.is_some()
        {
            presence.missed_end = true;
        }
    }

    /// `player` asks for a rematch (offers one, or accepts the other side's offer).
    /// Only an offer changes anything.
    pub fn ask_rematch(&mut self, player: PlayerId) -> Result<Rematch, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(
                ErrorCode::NotAPlayer,
                "only the game's players may ask for a rematch",
            );
        };
        if self.result.is_none() {
            return refused(ErrorCode::GameNotOver, "the game is still being played");
        }
        if let Some(rematch) = self.rematch {
            return refused(
                ErrorCode::GameOver,
                format!("the rematch has already started as game {rematch}"),
            );
        }
        let opponent_is_ai = matches!(self.seats[index(mark.opponent())], Sitter::Ai(_));
        Ok(match self.rematch_offer {
            Some(by) if by == mark => Rematch::Repeat(ServerMessage::RematchOffered {
                game: self.id,
                seq: self.seq,
                by: mark,
            }),
            Some(_) => Rematch::Start,
            None if opponent_is_ai => Rematch::Start,
            None => {
                self.rematch_offer = Some(mark);
                self.seq += 1;
                Rematch::Offer(Update::to_all(
                    ServerMessage::RematchOffered {
                        game: self.id,
                        seq: self.seq,
                        by: mark,
                    },
                    true,
                ))
            }
        })
    }

    /// The rematch started as game `id`.
    pub fn rematch_started(&mut self, id: GameId) {
        if self.result.is_some() {
            self.rematch = Some(id);
            self.rematch_offer = None;
        }
    }

    /// A chat line from `player` (`watching` if they watch the game), shown under the speaker's
    /// name (and marked a guest's when they are one). `text` is already checked.
    pub fn chat(
        &mut self,
        player: PlayerId,
        watching: bool,
        speaker: Speaker,
        text: String,
    ) -> Result<Update, Refusal> {
        let mark = self.mark_of(player);
        if mark.is_none() && !watching {
            return refused(ErrorCode::NotAPlayer, "watch the game to chat in it");
        }
        let line = ChatLine {
            from: speaker.name,
            player: Some(player),
            mark,
            text,
            guest: speaker.guest,
            bot: speaker.bot,
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
        // The players' chat goes to everyone; the spectators' chat only to the watchers, never
        // to the players while they sit in the game.
        Ok(Update {
            watchers_only: mark.is_none(),
            ..Update::to_all(message, true)
        })
    }

    /// The number of watchers is now `count`; a `watchers` update follows with
    /// [`Rules::flush_watchers`].
    pub fn watchers_changed(&mut self, count: usize) {
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        if count != self.watchers {
            self.watchers = count;
            self.watchers_pending = true;
        }
    }

    /// The `watchers` update, if the count changed since the last one and that one went out at
    /// least [`WATCHERS_EVERY`] ago.
    pub fn flush_watchers(&mut self, now: Instant) -> Option<Update> {
        if !self.watchers_pending || self.watchers_due().is_some_and(|due| now < due) {
            return None;
        }
        self.watchers_pending = false;
        self.watchers_sent = Some(now);
        self.seq += 1;
        let message = ServerMessage::Watchers {
            game: self.id,
            seq: self.seq,
            count: self.watchers,
        };
        Some(Update::to_all(message, false))
    }

    /// When the next `watchers` update may go out, if one waits.
    fn watchers_due(&self) -> Option<Instant> {
        self.watchers_pending
            .then(|| self.watchers_sent.map(|sent| sent + WATCHERS_EVERY))
            .flatten()
    }

    /// Starts the clock of the side to move if they can know it is their move: an AI always can, a
    /// person only while connected (a snapshot restarts it on their return). No clock runs until
    /// both sides have moved once.
    pub(super) fn start_turn(&mut self, now: Instant) {
        let mover = self.board.to_move();
        if self.result.is_none()
            && self.board.ply() >= 2
            && self.connected(mover)
            && let Some(clock) = &mut self.clock
        {
            clock.start(mover, now);
        }
    }

    /// The next moment something happens by itself: a flag falls, a grace runs out, a `watchers`
    /// update may go out, the game closes.
    pub fn deadline(&self) -> Option<Instant> {
        let own = if self.result.is_some() {
            self.close_at
        } else {
            let flag = self.clock.as_ref().and_then(Clock::flag_at);
            let flag = flag.into_iter().chain(self.first_move_by).min();
            let grace = self.seats.iter().filter_map(|seat| match seat {
                Sitter::Human(presence) => {
                    presence.away_since.map(|since| since + presence.grace_left)
                }
                Sitter::Ai(_) => None,
            });
            flag.into_iter().chain(grace).min()
        };
        own.into_iter().chain(self.watchers_due()).min()
    }

    /// What is due at `now`: a flag fell, a grace ran out (both: nobody wins), or the game closes.
    pub fn due(&self, now: Instant) -> Option<Due> {
        if self.result.is_some() {
            return self
                .close_at
                .is_some_and(|at| now >= at)
                .then_some(Due::Close);
        }
        if self.first_move_by.is_some_and(|by| now >= by) {
            // A first move did not come in time: nobody wins, and nothing is rated.
            return Some(Due::End(self.end_record(None, EndReason::Aborted, 0)));
        }
        if let Some(clock) = &self.clock
            && let (Some(at), Some(mark)) = (clock.flag_at(), clock.running())
            && now >= at
        {
            return Some(Due::End(self.end_record(
                Some(mark.opponent()),
                EndReason::Timeout,
                0,
            )));
        }
        let gone = |mark: Mark| match &self.seats[index(mark)] {
            Sitter::Human(presence) => presence
                .away_since
                .is_some_and(|since| now >= since + presence.grace_left),
            Sitter::Ai(_) => false,
        };
        if gone(Mark::X) && gone(Mark::O) {
            // Neither came back (as when nobody returns to a game restored after a restart):
            // nobody wins, and a rated game is not rated.
            return Some(Due::End(self.end_record(None, EndReason::Aborted, 0)));
        }
        [Mark::X, Mark::O]
            .into_iter()
            .find(|&mark| gone(mark))
            .map(|mark| Due::End(self.end_record(Some(mark.opponent()), EndReason::Abandon, 0)))
    }
}
