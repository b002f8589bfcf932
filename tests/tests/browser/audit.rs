//! An accessibility audit with axe-core, run in the test browser (the vendored
//! `tests/vendor/axe-core/axe.min.js`, injected; never served with the page): the lobby, a game
//! in play, a finished game and its replay, My games and a profile, on a desktop and on a phone,
//! with no serious or critical violation.

use noughts_tests::browser::{Driver, Screen, assert_no_errors, press, wait_for};

use super::{open, page, play_out, server};

/// axe-core, as published.
const AXE: &str = include_str!("../../vendor/axe-core/axe.min.js");

/// The serious and critical violations axe finds on the page as it is now, described.
pub(super) async fn audit(client: &fantoccini::Client) -> Vec<String> {
    client
        .execute(&format!("{AXE}\n;return true;"), vec![])
        .await
        .expect("axe-core loads");
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { resultTypes: ['violations'] })
               .then((r) => done({ passed: r.passes.length, serious: r.violations
                 .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                 .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`) }))
               .catch((e) => done({ passed: 0, serious: [`axe failed: ${e}`] }));",
            vec![],
        )
        .await
        .expect("axe-core runs");
    // axe did look: dozens of its rules hold on any page of ours.
    let passed = found["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 10, "axe checked only {passed} rules: {found}");
    serde_json::from_value(found["serious"].clone()).expect("a list")
}

async fn audit_every_view(client: &fantoccini::Client, screen: Screen, url: &str) {
    open(client, url).await;
    wait_for(client, "#war-games li").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "the lobby");
    press(client, screen, "#play-ai").await;
    press(client, screen, ".board [data-cell=\"4\"]").await;
    wait_for(client, ".board [data-mark=\"O\"]").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "a game");
    play_out(client, screen).await;
    wait_for(client, "#game-over").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "a finished game");
    press(client, screen, "#replay").await;
    // With the engine's verdicts on its moves.
    wait_for(client, ".replay .moves .move[data-verdict]").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "a replay");
    press(client, screen, "#lobby").await;
    press(client, screen, "#history").await;
    wait_for(client, "table.history").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "my games");
    // The player's own name there leads to their profile.
    press(client, screen, "table.history a.profile-link").await;
    wait_for(client, "#profile-ratings").await;
    assert_eq!(audit(client).await, Vec::<String>::new(), "a profile");
    assert_no_errors(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axe_finds_nothing_serious_on_a_desktop_or_a_phone() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let desktop = driver.session().await;
    audit_every_view(&desktop, Screen::Desktop, &page(&server)).await;
    desktop.close().await.unwrap();
    let phone = driver.phone().await;
    audit_every_view(&phone, Screen::Phone, &page(&server)).await;
    phone.close().await.unwrap();
}
