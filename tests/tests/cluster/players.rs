//! Players of `deploy/cluster` through its balancer, as the rolling restart and the fault tests
//! play them: each says hello, meets its opponent in a public room, and comes back with its
//! token whenever its connection closes.

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use futures_util::SinkExt;
use noughts_protocol::{
    ClientFrame, ClientMessage, CreateRoom, GameId, GameState, Mark, PROTOCOL_VERSION, PlayerId,
    ServerFrame, ServerMessage, Variant,
};
use noughts_tests::{Socket, connect_with, read_frame};
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;

/// How long a player may take to come back into its game.
pub(super) const BACK_WITHIN: Duration = Duration::from_secs(30);

/// How long two players wait for their room's game to start before they both come back.
const MEET_WITHIN: Duration = Duration::from_secs(8);

/// The longest a single read may wait: the harness's own read gives up (failing the test
/// without saying who waited) after its `WAIT` of 20 s.
const READ_WITHIN: Duration = Duration::from_secs(19);

/// One player's connection, and what it needs to come back.
pub(super) struct Seat {
    pub(super) ws: Socket,
    pub(super) token: String,
    pub(super) name: String,
    /// Its player id, from its first welcome: it plays as this player whichever node it is on.
    pub(super) player: PlayerId,
    pub(super) mark: Mark,
    /// Times it came back after its connection closed.
    pub(super) returns: u64,
    /// How long each return into a game took, from the close to the game's state.
    pub(super) comebacks: Vec<Duration>,
    /// The last frames it was sent, to say what it saw when something goes wrong.
    pub(super) seen: VecDeque<String>,
    /// How long it keeps trying to come back (to connect, be welcomed and find its game).
    pub(super) patience: Duration,
    /// When it was refused a connection (the balancer had no node ready) or a welcome.
    pub(super) turned_away: Vec<Instant>,
}

/// Connects through the balancer and says hello (with `token`, to come back); tries again while
/// the balancer has no node for it, the node refuses it or no welcome comes, for up to
/// `patience`, noting in `turned_away` when it was refused. Returns the socket, the new token and the
/// player's id.
pub(super) async fn hello(
    url: &str,
    name: &str,
    token: Option<&str>,
    patience: Duration,
    turned_away: &mut Vec<Instant>,
) -> (Socket, String, PlayerId) {
    let deadline = Instant::now() + patience;
    let mut refused = None;
    loop {
        assert!(
            Instant::now() < deadline,
            "{name} could not connect; the last refusal: {refused:?}"
        );
        let Ok(mut ws) = connect_with(url, None).await else {
            turned_away.push(Instant::now());
            sleep(Duration::from_millis(100)).await;
            continue;
        };
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.to_owned(),
            token: token.map(str::to_owned),
            credentials: None,
        };
        if ws
            .send(Message::text(ClientFrame::new(hello).to_json()))
            .await
            .is_err()
        {
            continue;
        }
        let wait = READ_WITHIN.min(deadline.saturating_duration_since(Instant::now()));
        let Ok(welcome) = timeout(wait, read_frame(&mut ws)).await else {
            assert!(Instant::now() < deadline, "{name}: no welcome");
            continue;
        };
        match welcome {
            Ok(frame) => match frame.message {
                ServerMessage::Welcome { token, player, .. } => return (ws, token, player),
                // Turned away for now (its node cannot look players up): again, as a person
                // would try again.
                refusal @ ServerMessage::Error { .. } => {
                    turned_away.push(Instant::now());
                    refused = Some(refusal);
                    sleep(Duration::from_millis(500)).await;
                }
                other => panic!("{name}: welcome, got {other:?}"),
            },
            // Closed at once: a node stopping under it.
            Err(_) => sleep(Duration::from_millis(100)).await,
        }
    }
}

impl Seat {
    /// A new player, welcomed through the balancer at `url`.
    pub(super) async fn join(url: &str, name: String, patience: Duration) -> Seat {
        let mut turned_away = Vec::new();
        let (ws, token, player) = hello(url, &name, None, patience, &mut turned_away).await;
        Seat {
            ws,
            token,
            name,
            player,
            mark: Mark::X,
            returns: 0,
            comebacks: Vec::new(),
            seen: VecDeque::new(),
            patience,
            turned_away,
        }
    }

    /// Keeps `frame` among the last few this seat was sent.
    pub(super) fn note(&mut self, frame: &ServerFrame) {
        if self.seen.len() == 6 {
            self.seen.pop_front();
        }
        let text = format!("{:?}", frame.message);
        self.seen.push_back(text.chars().take(160).collect());
    }

    /// The next frame within `wait` (at most [`READ_WITHIN`]), or how the connection closed;
    /// `None` if nothing came.
    pub(super) async fn frame_within(
        &mut self,
        wait: Duration,
    ) -> Option<Result<ServerFrame, Option<u16>>> {
        let frame = timeout(wait.min(READ_WITHIN), read_frame(&mut self.ws))
            .await
            .ok()?;
        if let Ok(frame) = &frame {
            self.note(frame);
        }
        Some(frame)
    }

    /// The next frame, or how the connection closed; a connection silent for longer than the
    /// harness's wait fails the test, saying who waited, for what, and what it saw last.
    pub(super) async fn frame(&mut self, doing: &str) -> Result<ServerFrame, Option<u16>> {
        match self.frame_within(READ_WITHIN).await {
            Some(frame) => frame,
            None => panic!(
                "{}: no frame for {READ_WITHIN:?} while {doing}; the last it was sent: {:?}",
                self.name, self.seen
            ),
        }
    }

    /// Says hello again with its token, on a new connection.
    pub(super) async fn reconnect(&mut self, url: &str) {
        let (ws, token, _) = hello(
            url,
            &self.name,
            Some(&self.token),
            self.patience,
            &mut self.turned_away,
        )
        .await;
        self.ws = ws;
        self.token = token;
        self.returns += 1;
    }

    /// Comes back with the token and returns the game's state as the server has it, or says
    /// what it saw if the game does not come back within its patience.
    pub(super) async fn try_come_back(
        &mut self,
        url: &str,
        game: GameId,
    ) -> Result<GameState, String> {
        let closed = Instant::now();
        'again: loop {
            self.reconnect(url).await;
            let deadline = Instant::now() + self.patience;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(format!(
                        "{}: game {game:?} never came back within {:?}; the last it was sent: {:?}",
                        self.name, self.patience, self.seen
                    ));
                }
                match self.frame_within(left).await {
                    Some(Ok(frame)) => match frame.message {
                        ServerMessage::GameState(state) if state.game == game => {
                            self.comebacks.push(closed.elapsed());
                            return Ok(*state);
                        }
                        _ => {}
                    },
                    // Closed again (the node it landed on is the next to stop): again.
                    Some(Err(_)) => continue 'again,
                    None => {}
                }
            }
        }
    }

    /// [`Seat::try_come_back`], failing the test if the game does not come back.
    pub(super) async fn come_back(&mut self, url: &str, game: GameId) -> GameState {
        match self.try_come_back(url, game).await {
            Ok(state) => state,
            Err(failure) => panic!("{failure}"),
        }
    }

    /// Sends `message` (a send on a closed connection shows at the next read).
    pub(super) async fn send(&mut self, message: ClientMessage) {
        let _ = self
            .ws
            .send(Message::text(ClientFrame::new(message).to_json()))
            .await;
    }
}

/// The cells of a board as marks, in order (`None` for an empty cell).
pub(super) fn cells(board: &str) -> Vec<Option<Mark>> {
    board
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '/')
        .map(|c| match c {
            'X' => Some(Mark::X),
            'O' => Some(Mark::O),
            _ => None,
        })
        .collect()
}

/// The first empty cell of a board.
pub(super) fn first_empty(board: &str) -> usize {
    cells(board)
        .iter()
        .position(Option::is_none)
        .expect("an empty cell while the game goes on")
}

/// Reads `seat` until `what` picks a message out; `None` if the connection closes first, nothing
/// comes within `within`, or a request is refused (a room's node stopping refuses to start its
/// game, as a person would be told, and they try again).
async fn read_until<T>(
    seat: &mut Seat,
    within: Duration,
    what: impl Fn(ServerMessage) -> Option<T>,
) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let frame = seat.frame_within(left).await?.ok()?;
        if let ServerMessage::Error { .. } = frame.message {
            return None;
        }
        if let Some(found) = what(frame.message) {
            return Some(found);
        }
    }
}

/// A game both players may start now: live, and not one they played before.
fn new_game(state: &GameState, known: &HashSet<GameId>) -> bool {
    state.result.is_none() && !known.contains(&state.game)
}

/// Two players meet in a room: the new game's state, each seat's mark set.
async fn try_meet(seats: &mut [Seat; 2], known: &HashSet<GameId>) -> Option<GameState> {
    let room = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    });
    seats[0].send(room).await;
    let code = read_until(&mut seats[0], MEET_WITHIN, |m| match m {
        ServerMessage::RoomCreated { code, .. } => Some(code),
        _ => None,
    })
    .await?;
    seats[1].send(ClientMessage::JoinRoom { code }).await;
    // A join that reaches a node as it stops may go unanswered: that node tells its clients to
    // come back elsewhere, and the room's host, on another node, waits for nobody. After a
    // while both come back and meet again, as two people would.
    let seated = timeout(MEET_WITHIN, async {
        let mut state = None;
        for seat in seats.iter_mut() {
            let s = read_until(seat, MEET_WITHIN, |m| match m {
                ServerMessage::GameState(s) if new_game(&s, known) => Some(*s),
                _ => None,
            })
            .await?;
            seat.mark = s.you.expect("a seat");
            state = Some(s);
        }
        state
    });
    seated.await.ok().flatten()
}

/// [`try_meet`] until it works; when a connection closes on the way, both players come back,
/// and a game that did start comes back with them and is played on. `known` are the games the
/// pair played before: a late frame of one of those starts nothing.
pub(super) async fn meet(url: &str, seats: &mut [Seat; 2], known: &HashSet<GameId>) -> GameState {
    loop {
        if let Some(state) = try_meet(seats, known).await {
            return state;
        }
        let mut started = None;
        for (i, seat) in seats.iter_mut().enumerate() {
            seat.reconnect(url).await;
            let live = read_until(seat, Duration::from_secs(2), |m| match m {
                ServerMessage::GameState(s) if new_game(&s, known) => Some(*s),
                _ => None,
            })
            .await;
            if let Some(state) = live {
                started = Some((i, state));
            }
        }
        if let Some((i, state)) = started {
            // Whichever of them was told, both seats are known.
            let mark = state.you.expect("a seat");
            seats[i].mark = mark;
            seats[1 - i].mark = mark.opponent();
            return state;
        }
    }
}
