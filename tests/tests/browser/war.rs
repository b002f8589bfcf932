//! The war games on the page: a watcher is carried on to the next war game when one ends, as
//! on TV, with the spectators' chat and what they were typing; a miniature is pressed to watch;
//! the engines' league, whose games they are, shows its table and each level's rating.

use fantoccini::Locator;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, fragment, press, wait_for, wait_for_text,
};

use super::{open, over, page, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_is_carried_on_to_the_next_war_game() {
    carried_on(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_watcher_is_carried_on_to_the_next_war_game() {
    carried_on(Screen::Phone).await;
}

/// A war game watched from the lobby (pressed as on `screen`) ends; the next one follows.
async fn carried_on(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    // The miniature itself opens the game.
    press(&client, screen, "#war-games li .mini").await;
    wait_for(&client, ".game .board").await;
    let first = fragment(&client).await;
    assert!(first.starts_with("game="), "{first}");
    // A line to the spectators, and another being typed when the game rolls over.
    type_chat(&client, "who wins?").await;
    press(&client, screen, "#chat-send").await;
    wait_for_text(&client, "#chat-lines", |t| t.contains("who wins?")).await;
    type_chat(&client, "half typ").await;
    // The war game ends on screen; the banner says who won (naming the side) or a draw.
    let status = wait_for_text(&client, "#game-status", over).await;
    assert!(
        status.starts_with("Draw") || status.contains("as X wins") || status.contains("as O wins"),
        "{status}"
    );
    wait_for(&client, "#next-war").await;
    // Then the next war game is on screen, at its own address.
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    let next = loop {
        let now = fragment(&client).await;
        if now != first && now.starts_with("game=") {
            break now;
        }
        assert!(tokio::time::Instant::now() < deadline, "still on {now}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let id = next.trim_start_matches("game=");
    wait_for(&client, &format!(".game[data-game=\"{id}\"] .board")).await;
    assert!(id.parse::<u64>().unwrap() > first.trim_start_matches("game=").parse().unwrap());
    // Nothing said or typed was lost on the way.
    wait_for_text(
        &client,
        &format!(".game[data-game=\"{id}\"] #chat-lines"),
        |t| t.contains("who wins?"),
    )
    .await;
    let typed = client
        .execute(
            "return document.getElementById('chat-input').value;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(typed, serde_json::json!("half typ"));
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

/// Types `text` into the chat's input. War games here are quick, so the game may roll over
/// (and the page put a new input in place of the one found) between finding the input and
/// typing: the keys then go to the input on screen now.
async fn type_chat(client: &fantoccini::Client, text: &str) {
    let mut tries = 0;
    loop {
        let typed = match client.find(Locator::Id("chat-input")).await {
            Ok(input) => input.send_keys(text).await,
            Err(err) => Err(err),
        };
        match typed {
            Ok(()) => return,
            Err(err) if tries < 5 => {
                tries += 1;
                eprintln!("typing into the chat again ({err})");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(err) => panic!("cannot type into the chat: {err}"),
        }
    }
}

/// Every war game's miniature in the lobby as the page draws it: its game id and board text.
async fn miniatures(client: &fantoccini::Client) -> Vec<(String, String)> {
    let found = client
        .execute(
            "return [...document.querySelectorAll('#war-games li[data-game] .mini')]
                 .map((mini) => [mini.closest('li').dataset.game, mini.dataset.board]);",
            vec![],
        )
        .await
        .expect("the page answers");
    serde_json::from_value(found).expect("pairs of strings")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_war_games_miniature_board_changes_as_it_plays() {
    miniature_moves(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_war_games_miniature_board_changes_as_it_plays() {
    miniature_moves(Screen::Phone).await;
}

/// On `screen`, a war game's miniature in the lobby is redrawn as the game plays.
async fn miniature_moves(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    wait_for(&client, "#war-games li[data-game] .mini .mini-cell").await;
    // The first board seen of each war game; the test ends when one of them has moved on.
    let mut first = std::collections::HashMap::new();
    let marks = |board: &str| board.chars().filter(|c| *c == 'X' || *c == 'O').count();
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    'watching: loop {
        for (game, board) in miniatures(&client).await {
            assert_eq!(board.chars().count(), 9, "a classic board: {board}");
            let seen = first.entry(game.clone()).or_insert_with(|| board.clone());
            if marks(&board) > marks(seen) {
                // What is drawn is that board: a cell per character, marked as it says.
                let drawn = client
                    .execute(
                        "return [...document.querySelectorAll(
                             `#war-games li[data-game='${arguments[0]}'] .mini-cell`)]
                             .map((cell) => cell.dataset.mark || '.').join('');",
                        vec![serde_json::json!(game)],
                    )
                    .await
                    .unwrap();
                if drawn.as_str() == Some(board.as_str()) {
                    break 'watching;
                }
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no war game's miniature changed: {first:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    league_shown(&client, screen).await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

/// The war games are the engines' league's: beside the AI's level, the lobby says how the
/// league rates it; the league's table has a line per level, and is redrawn as a game ends.
async fn league_shown(client: &fantoccini::Client, screen: Screen) {
    let rating = wait_for_text(client, "#level-rating", |t| t.contains("plays like")).await;
    assert!(rating.starts_with("medium plays like 1"), "{rating}");
    press(client, screen, "#league-link").await;
    wait_for(client, "#league-table").await;
    assert_eq!(fragment(client).await, "league=classic");
    let rows = client
        .execute(
            "return document.querySelectorAll('#league-table tbody tr').length;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(rows, serde_json::json!(5), "a line per level");
    let games = |text: &str| text.split(' ').next().and_then(|n| n.parse::<u32>().ok());
    let before = wait_for_text(client, "#league-games", |t| games(t).is_some()).await;
    wait_for_text(client, "#league-games", |t| games(t) > games(&before)).await;
}
