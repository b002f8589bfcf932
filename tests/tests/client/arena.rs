//! An arena in the terminal under tmux, against a real server: an account opens the arena from
//! the lobby, joins, is paired with a player of the test harness, plays the game to its end by
//! itself opening, is back on the standings with its points, and withdraws (the server's
//! standings say so too).

use noughts_client::embedded::Embedded;
use noughts_protocol::{
    ArenaView, ClientMessage, ClockSpec, CreateArena, GameId, Mark, ServerMessage, Variant,
};
use noughts_tests::Client;
use noughts_tests::accounts::make_account;
use noughts_tests::tmux::Tmux;

use crate::accounts::scripted;
use crate::support::{bin, config, temp_dir};
use crate::tui::moves_shown;

const PASSWORD: &str = "quartz meadow lantern";

/// The harness player's standings of the arena, asked afresh.
async fn standings(client: &mut Client, id: u64, arena: noughts_protocol::ArenaId) -> ArenaView {
    match client
        .request(id, ClientMessage::Arena { arena, code: None })
        .await
    {
        ServerMessage::Arena(view) => *view,
        other => panic!("expected the standings, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_player_joins_an_arena_plays_its_pairing_and_withdraws_under_tmux() {
    if !Tmux::available() {
        assert!(std::env::var("CI").is_err(), "tmux is missing under CI");
        println!("skipped: tmux is not installed");
        return;
    }
    let quiet = noughts_server::Config {
        war_games: false,
        arena_min_secs: 1,
        ..config()
    };
    let server = Embedded::start(quiet).await.unwrap();
    // Arenas are for accounts: the terminal's player registers first, from its config directory.
    let dir = temp_dir("arena-tui");
    let out = scripted(
        &server.url,
        &dir,
        &["register"],
        &format!("ivy_arena\n{PASSWORD}\n"),
    )
    .await;
    assert!(
        out.status.success(),
        "register: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The harness's player opens an arena running now, and joins it.
    let mut rival = Client::join(&server.url, "rival").await;
    make_account(&mut rival).await;
    let request = CreateArena {
        name: Some("Tmux arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 120_000,
            increment_ms: 0,
        },
        start_ms: None,
        length_secs: 300,
        private: false,
        bots_only: false,
    };
    let arena = match rival.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    let joined = rival
        .request(2, ClientMessage::JoinArena { arena, code: None })
        .await;
    assert!(matches!(joined, ServerMessage::Arena(_)), "{joined:?}");

    // The terminal: the arena in the lobby, opened with ⏎ (the last row), joined with j.
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={dir} NOUGHTS_DATA_DIR={dir}/data {bin} --server {url}",
        dir = dir.display(),
        bin = bin().display(),
        url = server.url
    );
    let tmux = Tmux::start("arena", 100, 30, &command);
    tmux.wait_for("the arena in the lobby", |s| {
        s.contains("ivy_arena") && s.contains("Tmux arena") && s.contains("1 players")
    })
    .await;
    tmux.send("End");
    tmux.send("Enter");
    tmux.wait_for("the arena's standings", |s| {
        s.contains("Arena · Tmux arena") && s.contains("You have not joined: j joins.")
    })
    .await;
    tmux.send("j");

    // The pairing: the game opens on the terminal by itself.
    let state = rival.game_state().await;
    let game: GameId = state.game;
    let terminal_x = state.you == Some(Mark::O);
    tmux.wait_for("the game opened by itself", |s| {
        s.contains(&format!("game #{game}"))
    })
    .await;
    // The terminal's side takes the top row; the rival's moves never make a line.
    let (x_cells, o_cells): (&[usize], &[usize]) = if terminal_x {
        (&[0, 1, 2], &[3, 4])
    } else {
        (&[3, 4, 8], &[0, 1, 2])
    };
    let plies = x_cells.len() + o_cells.len();
    for ply in 0..plies {
        let cell = if ply % 2 == 0 {
            x_cells[ply / 2]
        } else {
            o_cells[ply / 2]
        };
        let terminal_moves = (ply % 2 == 0) == terminal_x;
        if terminal_moves {
            tmux.wait_for("the terminal's move", |s| {
                s.contains("Your move") && moves_shown(s) == Some(ply as u32)
            })
            .await;
            tmux.send(&(cell + 1).to_string());
        } else {
            rival.send(ClientMessage::Move { game, cell }).await;
        }
        rival
            .until(|m| matches!(m, ServerMessage::Moved { cell: c, game: g, .. } if *c == cell && *g == game))
            .await;
    }
    tmux.wait_for("the win", |s| s.contains("You win")).await;

    // A moment later, the standings again, with the win's two points.
    tmux.wait_for("back on the standings with the points", |s| {
        s.contains("Arena · Tmux arena")
            && s.contains("You: #1 · 2 points · waiting for an opponent")
            && s.contains("1 games counted")
    })
    .await;

    // x withdraws: the screen and the server's standings say so.
    tmux.send("x");
    tmux.wait_for("withdrawn", |s| {
        s.contains("You withdrew (#1 · 2 points): j joins again.")
    })
    .await;
    let view = standings(&mut rival, 3, arena).await;
    let line = view
        .top
        .iter()
        .find(|l| l.name == "ivy_arena")
        .unwrap_or_else(|| panic!("the terminal's player is listed: {view:?}"));
    assert!(line.withdrawn && line.score == 2, "{line:?}");
    server.stop().await;
}
