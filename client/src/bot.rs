//! `noughts bot`: a player driven by the engine at one of its levels, or by a program of one's
//! own (see [`crate::external`]). It may turn its account into a bot account first; then it
//! seeks a game, plays it, and seeks again until it has played the number of games asked for;
//! or it joins an arena, or enters the engines' league, and plays the games paired for it.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::bail;
use noughts_engine::{Board, Budget, Level, Rng, Variant, choose_move};
use noughts_protocol::{
    ArenaId, ArenaStatus, ClientMessage, Clocks, ErrorCode, GameId, Mark, Seek, ServerMessage,
};

use crate::external::External;
use crate::net::Link;
use crate::net::NetEvent;
use crate::plain::result_text;

/// How long to wait before asking again after the server's rate limit refused a request.
const RATE_LIMITED_PAUSE: Duration = Duration::from_secs(1);

/// What an engine program is given of the clock it plays on: its time left but this much, for
/// the move to reach the server.
const CLOCK_MARGIN: Duration = Duration::from_millis(500);

/// Who chooses the moves.
#[derive(Debug, Clone)]
pub enum Mover {
    /// The engine, at this level.
    Level(Level),
    /// A program, started with this command line, given at most this long a move (less when
    /// the game's clock has less left).
    Program { command: String, limit: Duration },
}

/// Where the bot finds its games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Quick match: a seek after every game.
    Seek,
    /// An arena (for bots), which pairs it as it comes free.
    Arena(ArenaId),
    /// The engines' league of its variant, which pairs it in its round robin.
    League,
}

/// What the bot is asked to do.
#[derive(Debug, Clone)]
pub struct BotPlan {
    /// Who chooses its moves.
    pub mover: Mover,
    /// The game it seeks.
    pub variant: Variant,
    /// How many games it plays before leaving.
    pub games: u32,
    /// The least time it takes over a move, so that people can follow its games.
    pub think: Duration,
    /// Whether it seeks rated games.
    pub rated: bool,
    /// Whether to turn the account it plays as into a bot account first.
    pub become_bot: bool,
    /// Where it finds its games.
    pub entry: Entry,
}

/// The game being played.
struct Current {
    game: GameId,
    you: Mark,
    board: Board,
    /// The bot's time left, in a timed game, as of the last update.
    clock_ms: Option<u64>,
}

impl Current {
    /// The bot's time left from `clocks`, if the game is timed.
    fn clock(&mut self, clocks: Option<Clocks>) {
        if let Some(clocks) = clocks {
            self.clock_ms = Some(if self.you == Mark::X {
                clocks.x_ms
            } else {
                clocks.o_ms
            });
        }
    }
}

/// The game being played may have ended while the bot was away: coming back, it gets the final
/// snapshot instead of `game_over`, and takes it as the end.
fn final_as_end(message: ServerMessage, current: Option<&Current>) -> ServerMessage {
    match message {
        ServerMessage::GameState(mut state) if current.is_some_and(|c| c.game == state.game) => {
            match state.result.take() {
                Some(result) => ServerMessage::GameOver {
                    game: state.game,
                    seq: state.seq,
                    board: std::mem::take(&mut state.board),
                    result,
                    ratings: None,
                    clocks: state.clocks,
                },
                None => ServerMessage::GameState(state),
            }
        }
        other => other,
    }
}

/// The bot's state between messages.
struct Bot {
    link: Link,
    plan: BotPlan,
    seek: ClientMessage,
    rng: Rng,
    /// The program choosing the moves, when one does.
    program: Option<External>,
    current: Option<Current>,
    played: u32,
    /// Games won, drawn and lost.
    tally: [u32; 3],
    /// The arena it joined has finished: no more games will come.
    over: bool,
}

/// Plays `plan.games` games, printing one line per game to `out`.
pub async fn run(link: Link, plan: BotPlan, out: &mut impl Write) -> anyhow::Result<()> {
    let program = match &plan.mover {
        Mover::Program { command, .. } => Some(External::start(command)?),
        Mover::Level(_) => None,
    };
    let seek = match plan.entry {
        Entry::Seek => ClientMessage::Seek(Seek {
            variant: plan.variant,
            clock: None,
            rated: plan.rated,
            bots: false,
        }),
        Entry::Arena(arena) => ClientMessage::JoinArena { arena, code: None },
        Entry::League => ClientMessage::EnterLeague {
            variant: plan.variant,
        },
    };
    let mut bot = Bot {
        link,
        plan,
        seek,
        rng: Rng::new(),
        program,
        current: None,
        played: 0,
        tally: [0; 3],
        over: false,
    };
    while bot.played < bot.plan.games && !bot.over {
        let message = match bot.link.next().await {
            None => bail!("the connection ended"),
            Some(NetEvent::Closed(reason)) => bail!("{reason}"),
            Some(NetEvent::Lost { reason, retry_in }) => {
                eprintln!("{reason}; retrying in {:.1}s", retry_in.as_secs_f32());
                continue;
            }
            Some(NetEvent::Connecting) => continue,
            Some(NetEvent::Frame(frame)) => frame.message,
        };
        let message = final_as_end(message, bot.current.as_ref());
        if let Some(board) = bot.handle(message, out).await? {
            bot.play(board).await?;
        }
    }
    let [wins, draws, losses] = bot.tally;
    writeln!(
        out,
        "{} games: {wins} won, {draws} drawn, {losses} lost",
        bot.played
    )?;
    Ok(())
}

impl Bot {
    /// Takes one message in; the board to move on, when it is the bot's turn.
    async fn handle(
        &mut self,
        message: ServerMessage,
        out: &mut impl Write,
    ) -> anyhow::Result<Option<Board>> {
        Ok(match message {
            ServerMessage::Welcome {
                resumed, bot, name, ..
            } => {
                if self.plan.become_bot && !bot {
                    self.become_bot(&name, out).await?;
                }
                if self.current.is_none() || !resumed {
                    self.current = None;
                    self.link.send(self.seek.clone());
                }
                None
            }
            ServerMessage::GameState(state) => {
                let (Some(you), None) = (state.you, &state.result) else {
                    return Ok(None);
                };
                let board = Board::parse(state.variant, &state.board)?;
                let opponent = if you == Mark::X { state.o } else { state.x };
                let mark = if opponent.bot { " BOT" } else { "" };
                writeln!(
                    out,
                    "game {}: playing {} against {}{mark}",
                    state.game,
                    you.symbol(),
                    opponent.name
                )?;
                let mut current = Current {
                    game: state.game,
                    you,
                    board,
                    clock_ms: None,
                };
                current.clock(state.clocks);
                self.current = Some(current);
                (state.to_move == Some(you)).then_some(board)
            }
            ServerMessage::Moved {
                game,
                board,
                to_move,
                clocks,
                ..
            } => {
                let Some(cur) = self.current.as_mut().filter(|c| c.game == game) else {
                    return Ok(None);
                };
                cur.board = Board::parse(cur.board.variant(), &board)?;
                cur.clock(clocks);
                (to_move == Some(cur.you)).then_some(cur.board)
            }
            ServerMessage::GameOver { game, result, .. } => {
                let Some(cur) = self.current.take_if(|c| c.game == game) else {
                    return Ok(None);
                };
                self.played += 1;
                let (slot, outcome) = match result.winner {
                    Some(w) if w == cur.you => (0, "won"),
                    Some(_) => (2, "lost"),
                    None => (1, "drew"),
                };
                self.tally[slot] += 1;
                let text = result_text(cur.board.variant(), &result);
                writeln!(out, "game {game}: {outcome}: {text}")?;
                // An arena or the league pairs the bot again by itself.
                if self.played < self.plan.games && self.plan.entry == Entry::Seek {
                    self.link.send(self.seek.clone());
                }
                None
            }
            ServerMessage::Arena(view) => {
                if view.info.status == ArenaStatus::Finished && self.current.is_none() {
                    writeln!(out, "arena {}: finished", view.info.arena)?;
                    self.over = true;
                }
                None
            }
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => {
                // The request was dropped: wait, then ask again for whatever is pending.
                tokio::time::sleep(RATE_LIMITED_PAUSE).await;
                match &self.current {
                    Some(cur) if cur.board.to_move() == cur.you && !cur.board.is_over() => {
                        Some(cur.board)
                    }
                    Some(_) => None,
                    None => {
                        self.link.send(self.seek.clone());
                        None
                    }
                }
            }
            ServerMessage::Error { code, message } if self.refused(code) => {
                bail!("server: {message} ({code})")
            }
            ServerMessage::Error { code, message } => {
                match code {
                    ErrorCode::AlreadySeeking | ErrorCode::NotYourTurn => {}
                    ErrorCode::IllegalMove | ErrorCode::GameOver => {}
                    _ => eprintln!("server: {} ({code})", message),
                }
                None
            }
            ServerMessage::Shutdown { message } => {
                bail!("the server is shutting down: {}", message)
            }
            _ => None,
        })
    }

    /// Whether `code` refuses what the bot came for (its arena or the league): nothing to wait
    /// for then.
    fn refused(&self, code: ErrorCode) -> bool {
        self.plan.entry != Entry::Seek
            && matches!(
                code,
                ErrorCode::NoBots
                    | ErrorCode::BotsOnly
                    | ErrorCode::NoSuchArena
                    | ErrorCode::ArenaOver
                    | ErrorCode::NotABot
                    | ErrorCode::NoLeague
                    | ErrorCode::NotAnAccount
            )
    }

    /// Turns the account into a bot account before anything else: `ok`, or the refusal in
    /// words (a bot already is fine).
    async fn become_bot(&mut self, name: &str, out: &mut impl Write) -> anyhow::Result<()> {
        const ASKED: u64 = 1;
        self.link.request(ASKED, ClientMessage::BecomeBot);
        loop {
            match self.link.next_message().await? {
                ServerMessage::Ok => {
                    writeln!(out, "{name} is a bot account from now on")?;
                    return Ok(());
                }
                ServerMessage::Error {
                    code: ErrorCode::AlreadyBot,
                    ..
                } => return Ok(()),
                ServerMessage::Error { code, message } => {
                    bail!("{name} cannot become a bot: {message} ({code})")
                }
                _ => {}
            }
        }
    }

    /// Chooses a move on `board` and sends it; a program that gives none resigns the game and is
    /// started again for the next.
    async fn play(&mut self, board: Board) -> anyhow::Result<()> {
        let Some((game, clock_ms)) = self.current.as_ref().map(|c| (c.game, c.clock_ms)) else {
            return Ok(());
        };
        let started = Instant::now();
        let choice = match (&self.plan.mover, self.program.as_mut()) {
            (Mover::Program { limit, .. }, Some(program)) => {
                let left =
                    clock_ms.map(|ms| Duration::from_millis(ms).saturating_sub(CLOCK_MARGIN));
                let limit = left.map_or(*limit, |left| left.min(*limit));
                match program.choose(&board, limit).await {
                    Ok(cell) => Some(cell),
                    Err(fault) => {
                        eprintln!("{fault}: resigning game {game} and starting the engine again");
                        self.link.send(ClientMessage::Resign { game });
                        program.restart()?;
                        return Ok(());
                    }
                }
            }
            (Mover::Program { .. }, None) => None,
            (Mover::Level(level), _) => {
                let level = *level;
                let seed = self.rng.u64(..);
                tokio::task::spawn_blocking(move || {
                    choose_move(&board, level, &mut Rng::with_seed(seed), Budget::DEFAULT)
                })
                .await?
                .map(|choice| choice.cell)
            }
        };
        tokio::time::sleep(self.plan.think.saturating_sub(started.elapsed())).await;
        if let Some(cell) = choice {
            self.link.send(ClientMessage::Move { game, cell });
        }
        Ok(())
    }
}
