//! The interactive client under tmux: driven with keystrokes, read back with `capture-pane`.

use std::time::{Duration, Instant};

use noughts_client::embedded::Embedded;
use noughts_client::screen::board::Geometry;
use noughts_client::screen::game::board_area;
use noughts_engine::{Board, Budget, Level, Mark, Rng, Variant, choose_move};
use ratatui::layout::Rect;

use noughts_tests::tmux::Tmux;

use crate::support::{bin, config, temp_dir};

/// Reads the classic board off the screen, using the same layout the client draws with.
pub(crate) fn read_board(screen: &str, width: u16, height: u16) -> Board {
    let geometry = Geometry::new(Variant::Classic, board_area(Rect::new(0, 0, width, height)));
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let text: String = geometry
        .cells
        .iter()
        .map(|rect| {
            let middle = &lines[usize::from(rect.y + 1)];
            let cell: String = middle[usize::from(rect.x)..usize::from(rect.x + rect.width)]
                .iter()
                .collect();
            if cell.contains('╳') {
                'X'
            } else if cell.contains("│ │") {
                'O'
            } else {
                '.'
            }
        })
        .collect();
    Board::parse(Variant::Classic, &text).unwrap_or_else(|err| panic!("{err}: {text}\n{screen}"))
}

/// The move count the side panel shows ("move N · …").
pub(crate) fn moves_shown(screen: &str) -> Option<u32> {
    screen.match_indices("move ").find_map(|(at, found)| {
        let digits: String = screen[at + found.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_a_full_game_against_the_perfect_ai_under_tmux() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let config_dir = temp_dir("tmux");
    let (width, height) = (100, 30);
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {} --name tester",
        config_dir.display(),
        bin().display(),
        server.url
    );
    let tmux = Tmux::start("play", width, height, &command);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;

    // a: play the AI; the form defaults to classic, medium, playing X: up the level to perfect.
    tmux.send("a");
    tmux.wait_for("the form", |s| {
        s.contains("Play the AI") && s.contains("medium")
    })
    .await;
    // Beside the level, how the engines' league (the war games) rates it.
    tmux.wait_for("the level's rating", |s| s.contains("plays like 1"))
        .await;
    tmux.send("Down");
    tmux.send("Right");
    tmux.send("Right");
    tmux.wait_for("the perfect AI", |s| s.contains("perfect"))
        .await;
    tmux.send("Enter");
    let mut screen = tmux.wait_for("the game", |s| s.contains("Your move")).await;

    // Play perfectly with the engine, entering moves as digits laid out like the board.
    let mut rng = Rng::with_seed(7);
    loop {
        if screen.contains("Draw") || screen.contains("You lose") || screen.contains("You win") {
            break;
        }
        let board = read_board(&screen, width, height);
        assert_eq!(board.to_move(), Mark::X, "it is our move:\n{screen}");
        let choice = choose_move(&board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
        let before = board.ply();
        tmux.send(&(choice.cell + 1).to_string());
        screen = tmux
            .wait_for("the AI's answer", |s| {
                s.contains("Draw")
                    || s.contains("You lose")
                    || s.contains("You win")
                    || (s.contains("Your move") && moves_shown(s) >= Some(before + 2))
            })
            .await;
    }
    assert!(
        screen.contains("Draw (board full)"),
        "perfect play against the perfect AI is a draw:\n{screen}"
    );
    let board = read_board(&screen, width, height);
    assert_eq!(board.ply(), 9, "the board is full:\n{screen}");

    // q back to the lobby; the leaderboard tab (L) turns to the engines' league (e).
    tmux.send("q");
    tmux.wait_for("the lobby again", |s| s.contains("Lobby"))
        .await;
    tmux.send("L");
    tmux.wait_for("the leaderboard", |s| s.contains("e engines"))
        .await;
    tmux.send("e");
    let league = tmux
        .wait_for("the league's table", |s| {
            s.contains("Engines' league") && s.contains("AI (perfect)") && s.contains("AI (random)")
        })
        .await;
    assert!(league.contains("e players"), "{league}");
    // q back to the lobby's games, q to quit: the client exits and tmux's session with it.
    tmux.send("q");
    tmux.wait_for("the lobby's games", |s| s.contains("War games"))
        .await;
    tmux.send("q");
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.alive() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!tmux.alive(), "the client quit");
    // The identity was kept for the next start.
    let tokens = std::fs::read_to_string(config_dir.join("tokens")).unwrap();
    assert!(tokens.starts_with(&server.url));
    server.stop().await;
}
