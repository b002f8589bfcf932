//! The terminal's game panel and boxes under tmux: at 80×24 the help is whole and a box leaves no
//! half-covered word beside it, and the AI's level defaults to medium; at 120×40, against a
//! rival over the protocol, the moves in numbered pairs over more than two rows, a rematch and a
//! draw offer declined, one's own takeback request in the first person and withdrawn, and, when
//! the rival leaves, the countdown and the win claimed.

use std::time::Duration;

use noughts_client::embedded::Embedded;
use noughts_protocol::{ClientMessage, GameId, Mark, OfferKind, Seek, ServerMessage, Variant};
use noughts_tests::Client;
use noughts_tests::tmux::Tmux;

use crate::support::{bin, config, temp_dir};

/// The client under tmux at `width`×`height`, as `name`, on `url`.
fn client(name: &str, url: &str, width: u16, height: u16) -> Tmux {
    let dir = temp_dir(name);
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} NOUGHTS_DATA_DIR={} {} --server {url} --name {name}",
        dir.display(),
        dir.join("data").display(),
        bin().display(),
    );
    Tmux::start(name, width, height, &command)
}

/// The rows of `screen` a double-bordered box spans, with what lies beside the box.
fn beside_box(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|line| line.contains('║') || line.contains('╔') || line.contains('╚'))
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            let first = chars.iter().position(|c| "║╔╚".contains(*c)).unwrap_or(0);
            let last = chars.iter().rposition(|c| "║╗╝".contains(*c)).unwrap_or(0);
            let outside: String = chars[..first].iter().chain(&chars[last + 1..]).collect();
            outside.trim().to_owned()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_80_by_24_the_help_is_whole_and_a_box_cuts_no_word_beside_it() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let tmux = client("small", &server.url, 80, 24);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;
    tmux.send("a");
    let screen = tmux
        .wait_for("the form", |s| s.contains("Play the AI"))
        .await;
    assert!(
        screen
            .lines()
            .any(|l| l.contains("Level") && l.contains("medium")),
        "the AI's level defaults to medium:\n{screen}"
    );
    let beside = beside_box(&screen);
    assert!(
        beside.iter().all(String::is_empty),
        "text beside the box: {beside:?}\n{screen}"
    );
    tmux.send("Enter");
    tmux.wait_for("the game", |s| s.contains("Your move")).await;
    tmux.send("?");
    let help = tmux.wait_for("the help", |s| s.contains("Help")).await;
    for whole in [
        "type a cell: 5, b3, 2b3 (layer, column, row)",
        "back to the lobby (your game goes on)",
        "opponent gone: claim the win / a draw",
        "decline their offer / withdraw your own",
    ] {
        assert!(help.contains(whole), "{whole:?} is cut:\n{help}");
    }
    server.stop().await;
}

/// Waits until the rival hears of a move at `cell`.
async fn rival_saw(rival: &mut Client, cell: usize) {
    rival
        .until(|m| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == cell))
        .await;
}

/// Plays `cells` in turn, X first: the terminal's moves as digits, the rival's over the protocol.
async fn play(tmux: &Tmux, rival: &mut Client, game: GameId, me: Mark, cells: &[usize]) {
    for (ply, &cell) in cells.iter().enumerate() {
        let mover = if ply % 2 == 0 { Mark::X } else { Mark::O };
        if mover == me {
            tmux.wait_for("our move", |s| s.contains("Your move")).await;
            tmux.send(&(cell + 1).to_string());
        } else {
            rival.send(ClientMessage::Move { game, cell }).await;
        }
        rival_saw(rival, cell).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_120_by_40_moves_go_in_pairs_offers_read_in_the_first_person_and_a_win_is_claimed() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(noughts_server::Config {
        grace: Duration::from_secs(60),
        claim_after: Duration::from_secs(2),
        ..config()
    })
    .await
    .unwrap();
    let tmux = client("tess", &server.url, 120, 40);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;
    tmux.send("m");
    tmux.wait_for("the quick match form", |s| s.contains("Quick match"))
        .await;
    tmux.send("Enter");
    tmux.wait_for("the seek", |s| {
        s.contains("Looking") || s.contains("eeking")
    })
    .await;
    let mut rival = Client::join(&server.url, "rival").await;
    rival
        .send(ClientMessage::Seek(Seek {
            variant: Variant::Classic,
            clock: None,
            rated: false,
            bots: false,
        }))
        .await;
    let state = rival.game_state().await;
    let me = state.you.expect("the rival plays").opponent();
    // A full board without a line: nine moves, five numbered pairs over three rows.
    play(
        &tmux,
        &mut rival,
        state.game,
        me,
        &[0, 1, 2, 4, 3, 5, 7, 6, 8],
    )
    .await;
    let screen = tmux
        .wait_for("the draw", |s| s.contains("Draw (board full)"))
        .await;
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("1. X 1 O 2") || l.contains("3. X 4 O 6") || l.contains("5. X 9"))
        .collect();
    assert_eq!(rows.len(), 3, "three rows of numbered pairs:\n{screen}");

    // The rival's rematch offer, declined with n.
    rival
        .send(ClientMessage::Rematch { game: state.game })
        .await;
    tmux.wait_for("the rematch offer", |s| {
        s.contains("rival offers a rematch") && s.contains("r accept · n decline")
    })
    .await;
    tmux.send("n");
    rival
        .until(|m| {
            matches!(
                m,
                ServerMessage::Declined {
                    offer: OfferKind::Rematch,
                    ..
                }
            )
        })
        .await;
    tmux.wait_for("the decline said", |s| {
        s.contains("You declined the rematch")
    })
    .await;
    // Our own offer, accepted: the rematch starts with sides swapped.
    tmux.send("r");
    tmux.wait_for("our offer", |s| {
        s.contains("You offered a rematch") && s.contains("x cancel it")
    })
    .await;
    rival
        .until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    rival
        .send(ClientMessage::Rematch { game: state.game })
        .await;
    let rematch = rival.game_state().await;
    let game = rematch.game;
    let me = me.opponent();
    play(&tmux, &mut rival, game, me, &[4, 0]).await;

    // The rival's draw offer, declined and said so.
    rival.send(ClientMessage::OfferDraw { game }).await;
    tmux.wait_for("the draw offer", |s| {
        s.contains("rival offers a draw") && s.contains("d accept · n decline")
    })
    .await;
    tmux.send("n");
    rival
        .until(|m| matches!(m, ServerMessage::Declined { .. }))
        .await;
    tmux.wait_for("the decline said", |s| {
        s.contains("You declined the draw offer")
    })
    .await;
    // Our own takeback request in the first person, withdrawn with x.
    tmux.send("u");
    tmux.wait_for("our request", |s| {
        s.contains("You asked to take back your") && s.contains("x cancel it")
    })
    .await;
    rival
        .until(|m| matches!(m, ServerMessage::Offered { .. }))
        .await;
    tmux.send("x");
    rival
        .until(|m| matches!(m, ServerMessage::Withdrawn { .. }))
        .await;
    tmux.wait_for("the withdrawal said", |s| {
        s.contains("You withdrew your takeback") && !s.contains("x cancel it")
    })
    .await;

    // The rival leaves: a countdown, then the claim, then the win.
    drop(rival);
    tmux.wait_for("the countdown", |s| {
        s.contains("rival left: 0:5") && s.contains("You may claim in 0:0")
    })
    .await;
    tmux.send("w");
    tmux.wait_for("too early, said", |s| {
        s.contains("You may claim the game in")
    })
    .await;
    tmux.wait_for("the claim", |s| s.contains("w claim the win · = a draw"))
        .await;
    tmux.send("w");
    tmux.wait_for("the win", |s| s.contains("You win! (abandonment)"))
        .await;
    server.stop().await;
}
