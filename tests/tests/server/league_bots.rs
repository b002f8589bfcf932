//! Bots where only bots go, on a real server, on a SQLite file and on PostgreSQL. A bot account
//! enters the engines' league (a person and a guest are refused), the round robin pairs it with
//! the levels, and it plays its league game over its own connection to the end: the game is
//! counted once, in the bot's line of the table. While the bot is away its pairings are passed
//! over and the levels play on. An arena for bots refuses a person and pairs two bots.

use std::time::Duration;

use noughts_engine::{Board, Budget, Level, Rng, choose_move};
use noughts_protocol::{
    ArenaStatus, ClientMessage, ClockSpec, CreateArena, ErrorCode, GameId, League, LeagueTable,
    Mark, PlayerId, ServerMessage, Variant,
};
use noughts_tests::accounts::make_account;
use noughts_tests::on_both_stores;
use noughts_tests::stores::Db;
use noughts_tests::{Client, TestServer};

on_both_stores!(a_bot_plays_in_the_league, an_arena_for_bots);

/// How long the league may take to come to the bot's pairing, or to play a few games.
const LEAGUE_WITHIN: Duration = Duration::from_secs(60);

/// A client made a bot account.
async fn bot(url: &str, name: &str) -> Client {
    let mut client = Client::join(url, name).await;
    make_account(&mut client).await;
    assert_eq!(
        client.request(901, ClientMessage::BecomeBot).await,
        ServerMessage::Ok
    );
    client
}

fn table(message: ServerMessage) -> LeagueTable {
    match message {
        ServerMessage::LeagueTable(table) => *table,
        other => panic!("a league_table, got {other:?}"),
    }
}

/// `player`'s line's games, if it has a line.
fn games_of(table: &LeagueTable, player: PlayerId) -> Option<u32> {
    let line = table
        .standings
        .iter()
        .find(|s| s.entrant.bot == Some(player));
    line.map(|line| line.games)
}

/// Plays the game the bot is seated in from its first snapshot to its end, with the engine's
/// medium level choosing; the game's id and how it ended for the bot (Some(true) a win).
async fn play_to_the_end(client: &mut Client) -> (GameId, Option<bool>) {
    let state = client.game_state().await;
    let you = state.you.expect("seated");
    let game = state.game;
    let mut board = Board::parse(state.variant, &state.board).unwrap();
    let mut rng = Rng::new();
    let mut to_move = state.to_move;
    loop {
        if to_move == Some(you) {
            let choice = choose_move(&board, Level::Medium, &mut rng, Budget::millis(5));
            let cell = choice.expect("a move on a board in play").cell;
            client.send(ClientMessage::Move { game, cell }).await;
        }
        match client.game_event(game).await {
            ServerMessage::Moved {
                board: now,
                to_move: next,
                ..
            } => {
                board = Board::parse(state.variant, &now).unwrap();
                to_move = next;
            }
            ServerMessage::GameOver { result, .. } => {
                return (game, result.winner.map(|winner| winner == you));
            }
            _ => to_move = None,
        }
    }
}

async fn a_bot_plays_in_the_league(db: Db) {
    let Some(own) = db.fresh("a_bot_plays_in_the_league") else {
        return;
    };
    // Two levels and the bot: a round of six games, the bot in four of them.
    let server = TestServer::start(noughts_server::Config {
        war_games: true,
        war_variants: vec![Variant::Classic],
        league_levels: vec![Level::Easy, Level::Hard],
        war_budget: Budget::millis(5),
        war_move_delay: Duration::from_millis(5),
        war_restart_delay: Duration::from_millis(10),
        ..own.config()
    })
    .await;
    let url = server.url();

    let mut guest = Client::join(&url, "guest").await;
    let enter = ClientMessage::EnterLeague {
        variant: Variant::Classic,
    };
    guest
        .expect_error(1, enter.clone(), ErrorCode::NotABot)
        .await;
    let mut person = Client::join(&url, "person").await;
    make_account(&mut person).await;
    person
        .expect_error(2, enter.clone(), ErrorCode::NotABot)
        .await;

    let mut robo = bot(&url, "robo").await;
    let qubic = ClientMessage::EnterLeague {
        variant: Variant::Qubic,
    };
    robo.expect_error(3, qubic, ErrorCode::NoLeague).await;
    assert_eq!(robo.request(4, enter.clone()).await, ServerMessage::Ok);
    assert_eq!(
        robo.request(5, enter).await,
        ServerMessage::Ok,
        "twice is no error"
    );

    let follow = ClientMessage::League(League {
        variant: Variant::Classic,
        follow: true,
    });
    let first = table(guest.request(6, follow).await);
    assert_eq!(first.round_games, 6, "two levels and a bot");
    assert_eq!(games_of(&first, robo.player), Some(0), "{first:?}");
    let line = first.standings.iter().find(|s| s.entrant.bot.is_some());
    assert_eq!(line.map(|l| l.name.as_str()), Some(robo.name.as_str()));

    // The round robin comes to the bot: it plays over its own connection, to the end.
    let (game, _) = tokio::time::timeout(LEAGUE_WITHIN, play_to_the_end(&mut robo))
        .await
        .expect("the bot is paired in the league");
    let counted = tokio::time::timeout(LEAGUE_WITHIN, async {
        loop {
            let pushed = table(
                guest
                    .until(|m| matches!(m, ServerMessage::LeagueTable(_)))
                    .await,
            );
            if games_of(&pushed, robo.player) == Some(1) {
                return pushed;
            }
        }
    })
    .await
    .expect("the bot's game is counted");
    let lines: u32 = counted.standings.iter().map(|s| s.games).sum();
    assert_eq!(
        lines,
        2 * counted.games,
        "each game in two lines, once: {counted:?}"
    );
    let record = guest.record(7, game).await;
    assert!(record.result.is_some(), "{record:?}");

    // Away: its pairings are passed over, and the levels play on without it.
    drop(robo);
    let before = counted.games;
    let later = tokio::time::timeout(LEAGUE_WITHIN, async {
        loop {
            let pushed = table(
                guest
                    .until(|m| matches!(m, ServerMessage::LeagueTable(_)))
                    .await,
            );
            if pushed.games >= before + 4 {
                return pushed;
            }
        }
    })
    .await
    .expect("the league plays on without the bot");
    let bot_line = later
        .standings
        .iter()
        .find(|s| s.entrant.bot.is_some())
        .expect("its line stays");
    assert!(
        bot_line.games <= 2,
        "an absent bot is not paired: {later:?}"
    );
}

async fn an_arena_for_bots(db: Db) {
    let Some(own) = db.fresh("an_arena_for_bots") else {
        return;
    };
    let server = TestServer::start(noughts_server::Config {
        arena_min_secs: 1,
        ..own.config()
    })
    .await;
    let url = server.url();
    let mut host = Client::join(&url, "host").await;
    make_account(&mut host).await;
    let request = CreateArena {
        name: Some("Bot blitz".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: None,
        length_secs: 30,
        private: false,
        bots_only: true,
    };
    let arena = match host.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => {
            assert!(info.bots_only, "{info:?}");
            info.arena
        }
        other => panic!("expected arena_created, got {other:?}"),
    };
    let join = ClientMessage::JoinArena { arena, code: None };
    host.expect_error(2, join.clone(), ErrorCode::BotsOnly)
        .await;

    let (mut one, mut two) = (bot(&url, "bot-one").await, bot(&url, "bot-two").await);
    for (client, id) in [(&mut one, 3), (&mut two, 4)] {
        match client.request(id, join.clone()).await {
            ServerMessage::Arena(view) => {
                assert_ne!(view.info.status, ArenaStatus::Finished);
            }
            other => panic!("expected the arena, got {other:?}"),
        }
    }
    // The two are paired with each other; one resigns and the game ends for both.
    let (a, b) = (one.game_state().await, two.game_state().await);
    assert_eq!(a.game, b.game);
    let marks = [a.you, b.you];
    assert!(marks.contains(&Some(Mark::X)) && marks.contains(&Some(Mark::O)));
    let names = [a.x.name.as_str(), a.o.name.as_str()];
    assert!(names.contains(&one.name.as_str()) && names.contains(&two.name.as_str()));
    assert!(a.x.bot && a.o.bot, "both marked as bots: {a:?}");
    one.send(ClientMessage::Resign { game: a.game }).await;
    two.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
}
