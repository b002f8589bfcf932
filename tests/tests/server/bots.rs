//! Bot accounts end to end on one server: `become_bot` is refused to a guest and to an account
//! that has played rated games, and is for good; a bot is marked in `welcome`, seats, chat,
//! seeks, rooms, the leaderboard, records and profiles; quick match pairs a bot only with a
//! person whose seek accepts bots (a person who did not choose is never paired with one, and a
//! bot may not accept their seek), and the game is rated as any other.

use noughts_protocol::{
    ClientFrame, ClientMessage, CreateRoom, ErrorCode, Leaderboard, Mark, PROTOCOL_VERSION, Seek,
    ServerMessage, Variant,
};
use noughts_tests::accounts::{TEST_PASSWORD, credentials, make_account, registered};
use noughts_tests::{Client, TestServer, connect, read_frame, send_frame, test_config};

fn seek(bots: bool) -> ClientMessage {
    ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: true,
        bots,
    })
}

/// Whether `username`'s sign-in is welcomed as a bot.
async fn welcomed_as_bot(url: &str, username: &str) -> bool {
    let mut socket = connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: username.to_owned(),
        token: None,
        credentials: Some(credentials(username, TEST_PASSWORD, None)),
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    match read_frame(&mut socket).await.expect("an answer").message {
        ServerMessage::Welcome { bot, .. } => bot,
        other => panic!("expected welcome, got {other:?}"),
    }
}

/// Plays a rated game between two accounts to a resignation.
async fn rated_game(a: &mut Client, b: &mut Client) {
    a.request(30, seek(false)).await;
    b.send(seek(false)).await;
    let state = a.game_state().await;
    b.game_state().await;
    a.send(ClientMessage::Resign { game: state.game }).await;
    a.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
}

#[tokio::test]
async fn a_bot_is_made_for_good_marked_everywhere_and_meets_only_those_who_chose_bots() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();

    // A guest cannot become a bot; an account that has played rated games cannot either.
    let mut guest = Client::join(&url, "guest").await;
    guest
        .expect_error(1, ClientMessage::BecomeBot, ErrorCode::NotAnAccount)
        .await;
    let (mut ada, mut bob) = (
        Client::join(&url, "ada").await,
        Client::join(&url, "bob").await,
    );
    make_account(&mut ada).await;
    make_account(&mut bob).await;
    rated_game(&mut ada, &mut bob).await;
    ada.expect_error(2, ClientMessage::BecomeBot, ErrorCode::HasRatedGames)
        .await;

    // A fresh account becomes one, for good.
    let mut robo = Client::join(&url, "robo").await;
    registered(&mut robo, "robo", TEST_PASSWORD).await;
    assert_eq!(
        robo.request(3, ClientMessage::BecomeBot).await,
        ServerMessage::Ok
    );
    robo.expect_error(4, ClientMessage::BecomeBot, ErrorCode::AlreadyBot)
        .await;
    assert!(welcomed_as_bot(&url, "robo").await);

    // Carol seeks without choosing bots: the bot's seek waits beside hers, never paired, and
    // the bot may not take hers.
    let mut watcher = Client::join(&url, "watcher").await;
    let mut lobby = watcher.follow_lobby(5).await;
    let mut carol = Client::join(&url, "carol").await;
    make_account(&mut carol).await;
    let ServerMessage::Seeking { seek: carols, .. } = carol.request(6, seek(false)).await else {
        panic!("carol's seek waits")
    };
    let ServerMessage::Seeking { seek: robos, .. } = robo.request(7, seek(false)).await else {
        panic!("the bot's seek waits")
    };
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.len() == 2)
        .await;
    let marks = (lobby.seeks[&carols].bot, lobby.seeks[&robos].bot);
    assert_eq!(marks, (false, true), "the lobby marks the bot's seek");
    robo.expect_error(
        8,
        ClientMessage::AcceptSeek { seek: carols },
        ErrorCode::NoBots,
    )
    .await;
    assert_eq!(
        carol.request(9, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );

    // Dave chooses to play bots: his seek meets the bot's, rated.
    let mut dave = Client::join(&url, "dave").await;
    make_account(&mut dave).await;
    dave.send(seek(true)).await;
    let state = dave.game_state().await;
    robo.game_state().await;
    assert!(state.rated);
    let (dave_mark, bot_seat) = match state.x.name.as_str() {
        "robo" => (Mark::O, &state.x),
        _ => (Mark::X, &state.o),
    };
    assert!(bot_seat.bot && bot_seat.name == "robo", "{state:?}");
    let dave_seat = if dave_mark == Mark::X {
        &state.x
    } else {
        &state.o
    };
    assert!(!dave_seat.bot);
    robo.say(state.game, "good luck").await;
    let line = dave
        .until(|m| matches!(m, ServerMessage::Chat { .. }))
        .await;
    let ServerMessage::Chat { line, .. } = line else {
        unreachable!()
    };
    assert!(line.bot && line.from == "robo", "{line:?}");
    dave.send(ClientMessage::Resign { game: state.game }).await;
    let over = dave
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let ServerMessage::GameOver { ratings, .. } = over else {
        unreachable!()
    };
    assert!(ratings.is_some(), "a bot's game is rated as any other");

    // The records, the leaderboard and the profile mark the bot.
    let record = dave.record(10, state.game).await;
    let seats = [record.x.bot, record.o.bot];
    assert_eq!(seats, [dave_mark == Mark::O, dave_mark == Mark::X]);
    let ask = ClientMessage::Leaderboard(Leaderboard {
        variant: Variant::Classic,
        offset: None,
        limit: None,
    });
    let ServerMessage::Leaderboard { players, .. } = dave.request(11, ask).await else {
        panic!("the leaderboard")
    };
    let robo_entry = players.iter().find(|p| p.name == "robo").expect("listed");
    assert!(robo_entry.bot);
    assert!(players.iter().filter(|p| p.name != "robo").all(|p| !p.bot));
    let ask = ClientMessage::Profile {
        player: None,
        username: Some("ROBO".to_owned()),
    };
    let ServerMessage::Profile(profile) = dave.request(12, ask).await else {
        panic!("a profile")
    };
    assert!(profile.bot);

    // A room a bot opens is marked in the lobby.
    let room = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    });
    robo.request(13, room).await;
    watcher
        .lobby_until(&mut lobby, |view| view.rooms.values().any(|r| r.bot))
        .await;
}
