//! The engines' league over three real nodes on one Redis and one PostgreSQL. A bot account
//! connected to a node that does not hold the league's war slot enters the league there, and the
//! holder pairs it: it plays its league games over its own connection to the end, and every
//! node's table counts them. The holder is then killed with SIGKILL and a third node takes the
//! slot (the test sees that it is not the bot's own): that node pairs the bot again, and the bot,
//! still on its own node, plays on. Once it goes, its pairings are passed over, not forfeited.
//! A holder killed and started again under its name at once, never seen gone, pairs the bot too,
//! whether the bot was in the midst of a game or between two.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use noughts_protocol::{
    ClientMessage, GameId, GameKind, League, LeagueTable, Mark, PlayerId, ServerMessage, Variant,
};
use noughts_tests::accounts::make_account;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch, read_frame};

use super::failover::launch;
use super::war::slot_holder;

/// The lease: a dead holder's slot is free a second after its last renewal.
const LEASE_MS: u64 = 1000;

/// How long a step may take: the league to come to the bot's pairing, a failover, a count.
const WITHIN: Duration = Duration::from_secs(40);

/// The bot's league games played before the kill, and those the new holder pairs after it.
const GAMES: usize = 2;

/// A node with the league on classic between two quick levels, moves a tenth of a second apart.
fn league_node(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    let lease = LEASE_MS.to_string();
    let args = [
        [
            "--lease-ms",
            &lease,
            "--grace-secs",
            "60",
            "--no-arena-schedule",
        ],
        [
            "--war-variants",
            "classic",
            "--league-levels",
            "easy,hard",
            "",
        ],
        ["--war-budget-ms", "5", "--war-move-ms", "100", ""],
        ["--war-restart-ms", "200", "", "", ""],
    ]
    .concat();
    let args: Vec<&str> = args.into_iter().filter(|a| !a.is_empty()).collect();
    launch(
        dir,
        db,
        redis,
        name,
        &args,
        ServerProcess::start_with_war_games,
    )
}

/// `redis-cli` on `url` with `args`: what it prints.
pub(super) fn redis_cli(url: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("redis-cli")
        .args(["--no-auth-warning", "-u", url])
        .args(args)
        .output()
        .expect("run redis-cli");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The node holding `game`'s lease, as Redis at `url` says (asked again for a moment while
/// it says none: the lease is noted as the game starts).
async fn owner(url: &str, game: GameId) -> Option<String> {
    for _ in 0..20 {
        let held = redis_cli(url, &["GET", &format!("{{g{}}}:owner", game.0)]);
        if let Some((node, _)) = held.rsplit_once(':') {
            return Some(node.to_owned());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    None
}

/// Waits until Redis at `url` says a node holds classic's war slot; which.
async fn holder(url: &str) -> String {
    let deadline = tokio::time::Instant::now() + WITHIN;
    loop {
        if let Some(node) = slot_holder(url, Variant::Classic) {
            return node;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nobody holds the slot"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One league game of the bot, as it played it.
#[derive(Debug)]
struct Played {
    game: GameId,
    /// The node that held the game's lease when the bot first saw it.
    node: Option<String>,
    /// Whether the bot won (`None` a draw).
    won: Option<bool>,
}

/// The bot: plays every league game the league seats it in, the first empty cell each move,
/// over its one connection.
struct Bot {
    client: Client,
    redis: String,
    /// The bot's mark in each game it was seated in.
    marks: BTreeMap<GameId, Mark>,
    /// The node each game was on when first seen.
    nodes: BTreeMap<GameId, Option<String>>,
    /// The last move sent, while no update has followed it: sent again after a silence (it may
    /// have been lost with a dying node).
    sent: Option<(GameId, usize)>,
    /// The games it has moved in.
    moved: HashSet<GameId>,
    /// Every game it finished, in order.
    played: Vec<Played>,
}

impl Bot {
    /// A new account on the node at `url`, made a bot and entered in classic's league; `redis`
    /// says which node holds each of its games.
    async fn entered(url: &str, redis: &str) -> Bot {
        let mut client = Client::join(url, "robo").await;
        make_account(&mut client).await;
        assert_eq!(
            client.request(1, ClientMessage::BecomeBot).await,
            ServerMessage::Ok
        );
        let enter = ClientMessage::EnterLeague {
            variant: Variant::Classic,
        };
        assert_eq!(client.request(2, enter).await, ServerMessage::Ok);
        Bot {
            client,
            redis: redis.to_owned(),
            marks: BTreeMap::new(),
            nodes: BTreeMap::new(),
            sent: None,
            moved: HashSet::new(),
            played: Vec::new(),
        }
    }

    /// Plays on until `done` says so of the bot, for [`WITHIN`] at most.
    async fn play_until(&mut self, done: impl Fn(&Bot) -> bool) {
        let deadline = tokio::time::Instant::now() + WITHIN;
        while !done(self) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the bot was not paired in time; it played {:?}",
                self.played
            );
            let frame =
                tokio::time::timeout(Duration::from_secs(2), read_frame(&mut self.client.socket));
            match frame.await {
                Ok(Ok(frame)) => self.take(frame.message).await,
                Ok(Err(code)) => panic!("the bot's connection closed ({code:?})"),
                Err(_) => {
                    if let Some((game, cell)) = self.sent {
                        self.client.send(ClientMessage::Move { game, cell }).await;
                    }
                }
            }
        }
    }

    /// Whether the bot is seated in a game it has moved in and that has not ended.
    fn in_play(&self) -> bool {
        let ended = |game: &GameId| self.played.iter().any(|p| p.game == *game);
        self.moved.iter().any(|game| !ended(game))
    }

    async fn take(&mut self, message: ServerMessage) {
        match message {
            ServerMessage::GameState(state) => {
                let Some(you) = state.you else { return };
                assert_eq!(state.kind, GameKind::War, "a league game: {state:?}");
                let (me, them) = match you {
                    Mark::X => (&state.x, &state.o),
                    Mark::O => (&state.o, &state.x),
                };
                assert!(me.bot && me.name == self.client.name, "{state:?}");
                assert!(them.level.is_some(), "the bot meets a level: {state:?}");
                if self.marks.insert(state.game, you).is_none() {
                    let node = owner(&self.redis, state.game).await;
                    self.nodes.insert(state.game, node);
                }
                // A snapshot again (the game taken over, or the connection attached again)
                // is answered again: a move already played is refused, its cell taken.
                match state.result {
                    Some(result) => self.over(state.game, result.winner),
                    None if state.to_move == Some(you) => {
                        self.answer(state.game, &state.board).await;
                    }
                    None => self.sent = None,
                }
            }
            ServerMessage::Moved {
                game,
                board,
                to_move,
                ..
            } if self.marks.contains_key(&game) => {
                if to_move.is_some() && to_move == self.marks.get(&game).copied() {
                    self.answer(game, &board).await;
                } else {
                    self.sent = None;
                }
            }
            ServerMessage::GameOver { game, result, .. } => self.over(game, result.winner),
            _ => {}
        }
    }

    /// Plays the first empty cell of `board` in `game`.
    async fn answer(&mut self, game: GameId, board: &str) {
        let cell = board.find('.').expect("an empty cell");
        self.sent = Some((game, cell));
        self.moved.insert(game);
        self.client.send(ClientMessage::Move { game, cell }).await;
    }

    /// `game` ended, won by `winner`: counted once.
    fn over(&mut self, game: GameId, winner: Option<Mark>) {
        let Some(&mark) = self.marks.get(&game) else {
            return;
        };
        if self.sent.is_some_and(|(g, _)| g == game) {
            self.sent = None;
        }
        if self.played.iter().any(|p| p.game == game) {
            return;
        }
        self.played.push(Played {
            game,
            node: self.nodes.get(&game).cloned().flatten(),
            won: winner.map(|w| w == mark),
        });
    }
}

/// Classic's league table as `looker`'s node has it.
async fn table(looker: &mut Client, id: u64) -> LeagueTable {
    let ask = ClientMessage::League(League {
        variant: Variant::Classic,
        follow: false,
    });
    match looker.request(id, ask).await {
        ServerMessage::LeagueTable(table) => *table,
        other => panic!("a league table, got {other:?}"),
    }
}

/// The games in `player`'s line of `table`.
fn games_of(table: &LeagueTable, player: PlayerId) -> u32 {
    let line = table
        .standings
        .iter()
        .find(|s| s.entrant.bot == Some(player));
    line.map_or(0, |line| line.games)
}

/// Waits until the node of each of `lookers` counts `games` league games of `player`, each game
/// in two lines once; the league's count of games, as the last has it.
async fn counted_everywhere(lookers: &mut [Client], player: PlayerId, games: u32) -> u32 {
    let deadline = tokio::time::Instant::now() + WITHIN;
    let mut id = 0;
    loop {
        let mut tables = Vec::new();
        for looker in lookers.iter_mut() {
            id += 1;
            tables.push(table(looker, id).await);
        }
        let agree = tables.iter().all(|t| {
            let lines: u32 = t.standings.iter().map(|s| s.games).sum();
            games_of(t, player) == games && lines == 2 * t.games
        });
        if agree {
            return tables.last().map_or(0, |t| t.games);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the nodes do not count the bot's {games} games: {tables:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_on_any_node_plays_in_the_league_through_a_failover() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("league_bots");
    let dir = Scratch::new("league-bots");
    // The first node up holds the slot; the bot connects to another.
    let first = league_node(&dir, &db, &redis, "l1");
    assert_eq!(holder(&redis.url).await, "l1");
    let mut nodes = BTreeMap::from([
        ("l1", first),
        ("l0", league_node(&dir, &db, &redis, "l0")),
        ("l2", league_node(&dir, &db, &redis, "l2")),
    ]);
    let mut lookers = BTreeMap::new();
    for (name, node) in &nodes {
        lookers.insert(*name, Client::join(&node.url, "looker").await);
    }

    let mut bot = Bot::entered(&nodes["l0"].url, &redis.url).await;
    let player = bot.client.player;

    // Paired by the holder, a node the bot is not connected to, again and again.
    bot.play_until(|bot| bot.played.len() >= GAMES).await;
    for game in &bot.played {
        assert_eq!(game.node.as_deref(), Some("l1"), "{:?}", bot.played);
    }
    let mut all: Vec<Client> = lookers.into_values().collect();
    let played = u32::try_from(bot.played.len()).unwrap();
    counted_everywhere(&mut all, player, played).await;
    // The holder dies in the midst of the bot's next game.
    bot.play_until(Bot::in_play).await;

    // The holder dies; the slot goes to l2 before its lease has run out (as if l2 had claimed
    // it first once it had), so that the new holder is not the bot's own node.
    nodes.remove("l1").unwrap().kill();
    let moved = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0";
    let lease = LEASE_MS.to_string();
    let taken = redis_cli(
        &redis.url,
        &["EVAL", moved, "1", "{slot:war:classic}", "l1", "l2", &lease],
    );
    assert_eq!(taken, "1", "the dead holder's slot was still its own");

    // The new holder pairs the bot again, still on its own node.
    let before: HashSet<GameId> = bot.marks.keys().copied().collect();
    bot.play_until(|bot| {
        let new = bot.played.iter().filter(|p| !before.contains(&p.game));
        new.filter(|p| p.node.as_deref() == Some("l2")).count() >= GAMES
    })
    .await;
    let after = bot.played.iter().filter(|p| !before.contains(&p.game));
    for game in after {
        assert_eq!(game.node.as_deref(), Some("l2"), "{:?}", bot.played);
    }
    // A game the holder was playing as it died is carried on and ends once.
    let unfinished: Vec<&GameId> = before
        .iter()
        .filter(|g| !bot.played.iter().any(|p| p.game == **g))
        .collect();
    assert!(unfinished.is_empty(), "games never ended: {unfinished:?}");
    eprintln!("the bot played {:?}", bot.played);
    // l1's looker (the second, by name) went with it.
    all.remove(1);
    let played = u32::try_from(bot.played.len()).unwrap();
    let league_games = counted_everywhere(&mut all, player, played).await;
    let looker = all.last_mut().expect("l2's looker");
    for (i, game) in bot.played.iter().enumerate() {
        let record = looker.record(100 + i as u64, game.game).await;
        let result = record.result.as_ref().expect("ended");
        assert!(record.moves.len() >= 5, "{record:?}");
        let won = result.winner.map(|w| bot.marks[&game.game] == w);
        assert_eq!(won, game.won, "{record:?}");
    }

    // Gone everywhere: its pairings are passed over and the levels play on, a round and more
    // (the bot's pairings come up four times in one), the bot's line growing by a game at most
    // (one it was seated in as it went, which finishes and counts).
    drop(bot);
    let deadline = tokio::time::Instant::now() + WITHIN;
    let mut id = 1000;
    loop {
        id += 1;
        let now = table(looker, id).await;
        let games = games_of(&now, player);
        assert!(games <= played + 1, "an absent bot is not paired: {now:?}");
        if now.games >= league_games + 8 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the league stopped: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_started_again_at_once_under_its_name_pairs_the_bot_again() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("league_restart");
    let dir = Scratch::new("league-restart");
    let first = league_node(&dir, &db, &redis, "r1");
    assert_eq!(holder(&redis.url).await, "r1");
    let other = league_node(&dir, &db, &redis, "r0");
    let mut bot = Bot::entered(&other.url, &redis.url).await;
    bot.play_until(|bot| bot.played.len() >= GAMES).await;

    // Started again twice: once in the midst of the bot's game, which the new process carries
    // on, and once just after one ended, when only the node's new incarnation tells the bot's
    // node that the holder no longer has it standing in.
    let mut holder = first;
    for midgame in [true, false] {
        let played = bot.played.len();
        if midgame {
            bot.play_until(Bot::in_play).await;
        } else {
            bot.play_until(|bot| bot.played.len() > played && !bot.in_play())
                .await;
        }
        // The slot is made to outlast the restart, so that the holder is the same node (by
        // name) before and after; the process is killed and started again at once, quicker
        // than the others could find it gone.
        assert_eq!(
            redis_cli(&redis.url, &["PEXPIRE", "{slot:war:classic}", "30000"]),
            "1"
        );
        holder.kill();
        holder = league_node(&dir, &db, &redis, "r1");

        let before: HashSet<GameId> = bot.marks.keys().copied().collect();
        bot.play_until(|bot| {
            let new = bot.played.iter().filter(|p| !before.contains(&p.game));
            new.count() >= GAMES
        })
        .await;
        for game in bot.played.iter().filter(|p| !before.contains(&p.game)) {
            assert_eq!(game.node.as_deref(), Some("r1"), "{:?}", bot.played);
        }
        // A game the old process was playing as it died is carried on and ends once.
        let unfinished: Vec<&GameId> = before
            .iter()
            .filter(|g| !bot.played.iter().any(|p| p.game == **g))
            .collect();
        assert!(unfinished.is_empty(), "games never ended: {unfinished:?}");
    }
}
