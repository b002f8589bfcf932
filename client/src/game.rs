//! One game as the client sees it: the server's snapshot kept current by its updates, plus the
//! cursor, the running clocks and the grace countdowns. Pure state, no drawing.

use std::time::{Duration, Instant};

use noughts_engine::Board;
use noughts_protocol::{
    Clocks, GameResult, GameState, Mark, OfferKind, RatingChanges, SeatInfo, ServerMessage,
};

/// How many chat lines a game keeps.
const CHAT_LINES: usize = 100;

/// A game on screen.
#[derive(Debug, Clone)]
pub struct GameView {
    /// The latest snapshot, with every update applied; names and chat already sanitised.
    pub state: GameState,
    /// The position, parsed from `state.board`.
    pub board: Board,
    /// The cell the cursor is on.
    pub cursor: usize,
    /// The clocks as last reported, and when they were received, so they can tick locally.
    pub clocks: Option<(Clocks, Instant)>,
    /// For each side (X, O) that is disconnected: the grace it had left and when that was said.
    pub grace: [Option<(u64, Instant)>; 2],
    /// For each side (X, O) that is disconnected: how long before the opponent may claim the
    /// game, and when that was said.
    pub claim: [Option<(u64, Instant)>; 2],
    /// The side that offered a rematch, if any.
    pub rematch_offer: Option<Mark>,
    /// Whether this client has offered a rematch itself.
    pub rematch_sent: bool,
    /// For a watcher: whether the chat panel shows the spectators' chat rather than the
    /// players'. (Players never get the spectators' chat.)
    pub spectators_chat: bool,
    /// A draw offer or takeback request waiting for an answer, and who made it.
    pub offer: Option<(Mark, OfferKind)>,
    /// After a rated game: both players' new ratings and what the game changed.
    pub ratings: Option<RatingChanges>,
    /// What just happened to an offer (taken back, declined, withdrawn), shown until the next
    /// move or offer.
    pub news: Option<News>,
}

/// What became of an offer, for the player to be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum News {
    /// Moves were taken back at the request of `by`.
    TakenBack { by: Option<Mark> },
    /// The offer made by `by` was declined.
    Declined { by: Mark, offer: OfferKind },
    /// The offer made by `by` was withdrawn by them.
    Withdrawn { by: Mark, offer: OfferKind },
}

impl GameView {
    /// A view of a snapshot received at `now`. `None` if the board text is unreadable.
    pub fn new(state: GameState, now: Instant) -> Option<GameView> {
        let board = Board::parse(state.variant, &state.board).ok()?;
        let variant = state.variant;
        let mid = variant.side() / 2;
        let centre = variant
            .cell_at(&vec![mid; variant.dims()])
            .expect("the centre is on the board");
        let cursor = state
            .moves
            .last()
            .copied()
            .filter(|_| !board.is_over())
            .map_or(centre, |_| first_empty_near(&board, centre));
        let mut grace = [None, None];
        let mut claim = [None, None];
        for away in &state.away {
            grace[mark_index(away.mark)] = Some((away.grace_ms, now));
            claim[mark_index(away.mark)] = Some((away.claim_ms, now));
        }
        let pending = state.offer.map(|pending| (pending.by, pending.offer));
        let rematch_offer = pending
            .filter(|(_, kind)| *kind == OfferKind::Rematch)
            .map(|(by, _)| by);
        let offer = pending.filter(|(_, kind)| *kind != OfferKind::Rematch);
        let rematch_sent = rematch_offer.is_some() && rematch_offer == state.you;
        Some(GameView {
            clocks: state.clocks.map(|clocks| (clocks, now)),
            state,
            board,
            cursor,
            grace,
            claim,
            rematch_sent,
            rematch_offer,
            spectators_chat: false,
            offer,
            ratings: None,
            news: None,
        })
    }

    /// The chat lines the chat panel shows: a player's game has only the players' chat; a
    /// watcher sees the players' or the spectators', as chosen with `t`.
    pub fn shown_chat(&self) -> impl Iterator<Item = &noughts_protocol::ChatLine> {
        let spectators = self.spectators_chat && self.you().is_none();
        self.state
            .chat
            .iter()
            .filter(move |line| line.mark.is_none() == spectators)
    }

    /// The game's id.
    pub fn id(&self) -> noughts_protocol::GameId {
        self.state.game
    }

    /// The side this client plays, if it plays in this game.
    pub fn you(&self) -> Option<Mark> {
        self.state.you
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.state.result.is_some()
    }

    /// Whether it is this client's move.
    pub fn my_turn(&self) -> bool {
        self.you().is_some() && self.state.to_move == self.you() && !self.is_over()
    }

    /// The last move played.
    pub fn last_move(&self) -> Option<usize> {
        self.state.moves.last().copied()
    }

    /// The result, once over.
    pub fn result(&self) -> Option<&GameResult> {
        self.state.result.as_ref()
    }

    /// The seat of `mark`.
    pub fn seat(&self, mark: Mark) -> &SeatInfo {
        match mark {
            Mark::X => &self.state.x,
            Mark::O => &self.state.o,
        }
    }

    fn seat_mut(&mut self, mark: Mark) -> &mut SeatInfo {
        match mark {
            Mark::X => &mut self.state.x,
            Mark::O => &mut self.state.o,
        }
    }

    /// The time `mark` has left at `now`, if the game has a clock.
    pub fn clock_ms(&self, mark: Mark, now: Instant) -> Option<u64> {
        let (clocks, at) = self.clocks?;
        let base = match mark {
            Mark::X => clocks.x_ms,
            Mark::O => clocks.o_ms,
        };
        if clocks.running == Some(mark) && !self.is_over() {
            let elapsed = now.saturating_duration_since(at).as_millis() as u64;
            Some(base.saturating_sub(elapsed))
        } else {
            Some(base)
        }
    }

    /// The grace `mark` has left to come back at `now`, if they are disconnected and the server
    /// said how long they have.
    pub fn grace_ms(&self, mark: Mark, now: Instant) -> Option<u64> {
        let (ms, at) = self.grace[mark_index(mark)]?;
        Some(ms.saturating_sub(now.saturating_duration_since(at).as_millis() as u64))
    }

    /// How long before this client may claim the game against its absent opponent at `now`
    /// (`Some(0)`: it may now), while the opponent is away from a live game.
    pub fn claim_ms(&self, now: Instant) -> Option<u64> {
        let you = self.you()?;
        if self.is_over() || self.seat(you.opponent()).connected {
            return None;
        }
        let (ms, at) = self.claim[mark_index(you.opponent())]?;
        Some(ms.saturating_sub(now.saturating_duration_since(at).as_millis() as u64))
    }

    /// Applies one server message about this game, received at `now`. Messages about other games,
    /// and stale ones (a `seq` not newer than the view's), change nothing. Returns whether the
    /// view changed.
    pub fn apply(&mut self, message: &ServerMessage, now: Instant) -> bool {
        let Some((game, seq)) = game_and_seq(message) else {
            return false;
        };
        if game != self.id() || seq <= self.state.seq {
            return false;
        }
        self.state.seq = seq;
        match message {
            ServerMessage::Moved {
                cell,
                board,
                to_move,
                clocks,
                ..
            } => {
                if let Ok(parsed) = Board::parse(self.state.variant, board) {
                    self.board = parsed;
                    self.state.board.clone_from(board);
                }
                self.state.moves.push(*cell);
                self.state.to_move = *to_move;
                if let Some(clocks) = clocks {
                    self.clocks = Some((*clocks, now));
                }
                if self.board.get(self.cursor).is_some() {
                    self.cursor = first_empty_near(&self.board, self.cursor);
                }
                self.rematch_offer = None;
                self.offer = None;
                self.news = None;
            }
            ServerMessage::Offered { by, offer, .. } => {
                self.offer = Some((*by, *offer));
                self.news = None;
            }
            ServerMessage::Declined { by, offer, .. } => self.settle(News::Declined {
                by: *by,
                offer: *offer,
            }),
            ServerMessage::Withdrawn { by, offer, .. } => self.settle(News::Withdrawn {
                by: *by,
                offer: *offer,
            }),
            ServerMessage::TakenBack {
                by,
                board,
                moves,
                to_move,
                clocks,
                ..
            } => {
                if let Ok(parsed) = Board::parse(self.state.variant, board) {
                    self.board = parsed;
                    self.state.board.clone_from(board);
                }
                self.state.moves.clone_from(moves);
                self.state.to_move = Some(*to_move);
                if let Some(clocks) = clocks {
                    self.clocks = Some((*clocks, now));
                }
                if self.board.get(self.cursor).is_some() {
                    self.cursor = first_empty_near(&self.board, self.cursor);
                }
                self.offer = None;
                self.news = Some(News::TakenBack { by: *by });
            }
            ServerMessage::GameOver {
                board,
                result,
                clocks,
                ratings,
                ..
            } => {
                self.ratings = *ratings;
                if let Ok(parsed) = Board::parse(self.state.variant, board) {
                    self.board = parsed;
                    self.state.board.clone_from(board);
                }
                self.state.result = Some(result.clone());
                self.state.to_move = None;
                self.offer = None;
                if let Some(clocks) = clocks {
                    self.clocks = Some((*clocks, now));
                } else if let Some((clocks, _)) = self.clocks {
                    // Freeze the clocks where they stood.
                    let frozen = Clocks {
                        x_ms: self.clock_ms(Mark::X, now).unwrap_or(clocks.x_ms),
                        o_ms: self.clock_ms(Mark::O, now).unwrap_or(clocks.o_ms),
                        running: None,
                    };
                    self.clocks = Some((frozen, now));
                }
                self.grace = [None, None];
                self.claim = [None, None];
            }
            ServerMessage::Presence {
                mark,
                connected,
                grace_ms,
                claim_ms,
                ..
            } => {
                self.seat_mut(*mark).connected = *connected;
                self.grace[mark_index(*mark)] = match (connected, grace_ms) {
                    (false, Some(ms)) => Some((*ms, now)),
                    _ => None,
                };
                self.claim[mark_index(*mark)] = match (connected, claim_ms) {
                    (false, Some(ms)) => Some((*ms, now)),
                    _ => None,
                };
                // The server stops a side's clock while it is away and restarts it on return.
                if let Some((clocks, _)) = self.clocks {
                    let running = match (connected, clocks.running) {
                        (false, Some(running)) if running == *mark => None,
                        (true, None) if self.state.to_move == Some(*mark) && !self.is_over() => {
                            Some(*mark)
                        }
                        (_, running) => running,
                    };
                    if running != clocks.running {
                        let rebased = Clocks {
                            x_ms: self.clock_ms(Mark::X, now).unwrap_or(clocks.x_ms),
                            o_ms: self.clock_ms(Mark::O, now).unwrap_or(clocks.o_ms),
                            running,
                        };
                        self.clocks = Some((rebased, now));
                    }
                }
            }
            ServerMessage::Watchers { count, .. } => self.state.watchers = *count,
            ServerMessage::Chat { line, .. } => {
                self.state.chat.push(line.clone());
                let excess = self.state.chat.len().saturating_sub(CHAT_LINES);
                self.state.chat.drain(..excess);
            }
            ServerMessage::RematchOffered { by, .. } => {
                self.rematch_offer = Some(*by);
                self.news = None;
            }
            _ => return false,
        }
        true
    }

    /// An offer ended unanswered (declined or withdrawn): it goes, and the news says so.
    fn settle(&mut self, news: News) {
        let (News::Declined { offer, .. } | News::Withdrawn { offer, .. }) = news else {
            return;
        };
        if offer == OfferKind::Rematch {
            self.rematch_offer = None;
            self.rematch_sent = false;
        } else {
            self.offer = None;
        }
        self.news = Some(news);
    }

    /// Moves the cursor by `delta` along coordinate `axis` (0 = layer on the cubes; the last two
    /// axes are row and column), stopping at the edges.
    pub fn move_cursor(&mut self, axis: usize, delta: isize) {
        let variant = self.state.variant;
        let mut coords = variant.coords(self.cursor);
        let n = variant.side() as isize;
        let Some(value) = coords.get_mut(axis) else {
            return;
        };
        *value = (*value as isize + delta).clamp(0, n - 1) as usize;
        if let Some(cell) = variant.cell_at(&coords) {
            self.cursor = cell;
        }
    }

    /// Moves the cursor to the next (`+1`) or previous (`-1`) layer on the cubes, wrapping around.
    pub fn change_layer(&mut self, delta: isize) {
        let variant = self.state.variant;
        if variant.dims() != 3 {
            return;
        }
        let mut coords = variant.coords(self.cursor);
        let n = variant.side() as isize;
        coords[0] = (coords[0] as isize + delta).rem_euclid(n) as usize;
        if let Some(cell) = variant.cell_at(&coords) {
            self.cursor = cell;
        }
    }
}

/// The game and sequence number of a per-game update.
fn game_and_seq(message: &ServerMessage) -> Option<(noughts_protocol::GameId, u64)> {
    match message {
        ServerMessage::Moved { game, seq, .. }
        | ServerMessage::GameOver { game, seq, .. }
        | ServerMessage::Presence { game, seq, .. }
        | ServerMessage::Watchers { game, seq, .. }
        | ServerMessage::Chat { game, seq, .. }
        | ServerMessage::RematchOffered { game, seq, .. }
        | ServerMessage::Offered { game, seq, .. }
        | ServerMessage::Declined { game, seq, .. }
        | ServerMessage::Withdrawn { game, seq, .. }
        | ServerMessage::TakenBack { game, seq, .. } => Some((*game, *seq)),
        _ => None,
    }
}

fn mark_index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

/// The empty cell closest to `cell` in numbering order (itself if empty).
fn first_empty_near(board: &Board, cell: usize) -> usize {
    let cells = board.variant().cells();
    (0..cells)
        .flat_map(|d| [cell + d, cell.wrapping_sub(d)])
        .find(|&c| c < cells && board.get(c).is_none())
        .unwrap_or(cell)
}

/// Formats milliseconds as a clock: `m:ss`, or `s.t` under ten seconds.
pub fn format_clock(ms: u64) -> String {
    if ms < 10_000 {
        format!("0:0{}.{}", ms / 1000, (ms % 1000) / 100)
    } else {
        let secs = ms.div_ceil(1000);
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// Formats a duration left as `m:ss`, rounding up.
pub fn format_countdown(ms: u64) -> String {
    let secs = Duration::from_millis(ms).as_secs() + u64::from(!ms.is_multiple_of(1000));
    format!("{}:{:02}", secs / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use noughts_protocol::{GameId, GameKind, Variant};

    fn seat(name: &str) -> SeatInfo {
        SeatInfo {
            name: name.into(),
            player: None,
            level: None,
            connected: true,
            rating: None,
            guest: false,
            bot: false,
        }
    }

    fn state() -> GameState {
        GameState {
            game: GameId(1),
            variant: Variant::Classic,
            kind: GameKind::Human,
            x: seat("ada\u{1b}[2J"),
            o: seat("bob"),
            you: Some(Mark::X),
            seq: 1,
            board: ".........".into(),
            moves: vec![],
            to_move: Some(Mark::X),
            clock: None,
            clocks: Some(Clocks {
                x_ms: 60_000,
                o_ms: 60_000,
                running: Some(Mark::X),
            }),
            result: None,
            watchers: 0,
            chat: vec![],
            rematch_of: None,
            rated: false,
            offer: None,
            away: Vec::new(),
        }
    }

    /// The snapshot as the connection hands it on, its text cleaned.
    fn cleaned(state: GameState) -> GameState {
        let mut message = ServerMessage::GameState(Box::new(state));
        crate::clean::clean(&mut message);
        match message {
            ServerMessage::GameState(state) => *state,
            _ => unreachable!(),
        }
    }

    #[test]
    fn applies_updates_in_order_and_ignores_stale_ones() {
        let t0 = Instant::now();
        let mut view = GameView::new(cleaned(state()), t0).unwrap();
        assert_eq!(view.seat(Mark::X).name, "ada");
        assert_eq!(view.cursor, 4);
        let moved = ServerMessage::Moved {
            game: GameId(1),
            seq: 2,
            mark: Mark::X,
            cell: 4,
            board: "....X....".into(),
            to_move: Some(Mark::O),
            clocks: None,
        };
        assert!(view.apply(&moved, t0));
        assert!(!view.apply(&moved, t0), "a repeated seq is ignored");
        assert_eq!(view.last_move(), Some(4));
        assert_ne!(view.cursor, 4, "the cursor leaves the taken cell");
        assert!(!view.my_turn());
    }

    #[test]
    fn clocks_tick_for_the_running_side_only() {
        let t0 = Instant::now();
        let view = GameView::new(state(), t0).unwrap();
        let later = t0 + Duration::from_millis(1500);
        assert_eq!(view.clock_ms(Mark::X, later), Some(58_500));
        assert_eq!(view.clock_ms(Mark::O, later), Some(60_000));
        assert_eq!(format_clock(58_500), "0:59");
        assert_eq!(format_clock(9_250), "0:09.2");
        assert_eq!(format_countdown(41_200), "0:42");
    }

    #[test]
    fn an_absent_sides_clock_stops_until_it_returns() {
        let t0 = Instant::now();
        let mut view = GameView::new(state(), t0).unwrap();
        let presence = |seq, connected| ServerMessage::Presence {
            game: GameId(1),
            seq,
            mark: Mark::X,
            connected,
            grace_ms: (!connected).then_some(30_000),
            claim_ms: (!connected).then_some(10_000),
        };
        view.apply(&presence(2, false), t0 + Duration::from_secs(1));
        let later = t0 + Duration::from_secs(11);
        assert_eq!(view.clock_ms(Mark::X, later), Some(59_000));
        assert_eq!(view.grace_ms(Mark::X, later), Some(20_000));
        view.apply(&presence(3, true), later);
        assert_eq!(
            view.clock_ms(Mark::X, later + Duration::from_secs(2)),
            Some(57_000)
        );
        assert_eq!(view.grace_ms(Mark::X, later), None);
    }

    #[test]
    fn cursor_stays_on_the_board() {
        let mut state = state();
        state.variant = Variant::Cube;
        state.board = ".".repeat(27);
        let mut view = GameView::new(state, Instant::now()).unwrap();
        assert_eq!(view.cursor, 13);
        view.move_cursor(2, 5);
        assert_eq!(view.cursor, 14);
        view.change_layer(1);
        assert_eq!(view.cursor, 23);
        view.change_layer(1);
        assert_eq!(view.cursor, 5);
    }
}
