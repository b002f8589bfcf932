//! Addresses: every view has its own (`#game=ID`, `#replay=ID`, `#history`, the lobby at `/`),
//! Back and Forward move between them, and a used invite link is not followed again.

use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, fragment, press, wait_for, wait_for_fragment,
};

use super::{open, page, play_out, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_and_forward_move_between_the_lobby_a_game_and_its_replay() {
    back_and_forward(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_back_and_forward_move_between_the_lobby_a_game_and_its_replay() {
    back_and_forward(Screen::Phone).await;
}

/// Back and Forward between the lobby, a game, its replay, My games and a watched war game, the
/// page pressed as on `screen`.
async fn back_and_forward(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    assert_eq!(fragment(&client).await, "");
    press(&client, screen, "#play-ai").await;
    wait_for(&client, ".game .board").await;
    let game = fragment(&client).await;
    assert!(game.starts_with("game="), "{game}");
    // The page follows the lobby only while it shows it.
    wait_for(&client, "body[data-lobby=\"not followed\"]").await;
    let id = game.trim_start_matches("game=").to_owned();
    play_out(&client, screen).await;
    press(&client, screen, "#replay").await;
    wait_for_fragment(&client, &format!("replay={id}")).await;
    wait_for(&client, ".replay").await;
    // Back: the game, then the lobby; Forward: the game, then the replay again.
    client.back().await.unwrap();
    wait_for_fragment(&client, &game).await;
    wait_for(&client, &format!(".game[data-game=\"{id}\"] #game-over")).await;
    client.back().await.unwrap();
    wait_for_fragment(&client, "").await;
    wait_for(&client, "#play-ai").await;
    wait_for(&client, "body[data-lobby=\"followed\"]").await;
    // The snapshot on coming back fills the lobby again.
    wait_for(&client, "#war-games li").await;
    client.forward().await.unwrap();
    wait_for_fragment(&client, &game).await;
    wait_for(&client, &format!(".game[data-game=\"{id}\"]")).await;
    client.forward().await.unwrap();
    wait_for_fragment(&client, &format!("replay={id}")).await;
    wait_for(&client, ".replay").await;
    // My games: its own address, a replay from there, and Back to it.
    press(&client, screen, "#lobby").await;
    wait_for_fragment(&client, "").await;
    press(&client, screen, "#history").await;
    wait_for_fragment(&client, "history").await;
    press(&client, screen, &format!("[data-replay=\"{id}\"]")).await;
    wait_for_fragment(&client, &format!("replay={id}")).await;
    client.back().await.unwrap();
    wait_for_fragment(&client, "history").await;
    wait_for(&client, &format!("[data-replay=\"{id}\"]")).await;
    // A war game watched from the lobby has its address; Back stops watching it.
    client.back().await.unwrap();
    wait_for_fragment(&client, "").await;
    press(&client, screen, "#war-games li button").await;
    wait_for(&client, ".game .board").await;
    let watched = fragment(&client).await;
    assert!(watched.starts_with("game="), "{watched}");
    // The address, reloaded, shows the same game (or, if that war game ended meanwhile, its
    // replay: a linked game that is over is still there to replay).
    client.refresh().await.unwrap();
    let watched = watched.trim_start_matches("game=");
    wait_for(
        &client,
        &format!(".game[data-game=\"{watched}\"], .replay[data-key=\"replay-{watched}\"]"),
    )
    .await;
    client.back().await.unwrap();
    wait_for(&client, "#play-ai").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
