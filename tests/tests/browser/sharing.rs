//! Sharing and installing: "Copy" works where the page may not use the clipboard (plain http by
//! address), the invite code never breaks across lines on a phone, and the page has an icon and
//! a web app manifest that the strict CSP lets through.

use noughts_tests::browser::{Driver, Screen, assert_no_errors, press, wait_for, wait_for_text};

use super::{open, page, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_works_without_a_clipboard_and_the_code_is_never_broken() {
    copy_without_clipboard(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_copy_works_without_a_clipboard_and_the_code_is_never_broken() {
    copy_without_clipboard(Screen::Phone).await;
}

/// On `screen`, as on plain http by address: "Copy" says what it did, the link is selected, and
/// the code sits on one line.
async fn copy_without_clipboard(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    // As on plain http by address: no `navigator.clipboard`.
    client
        .execute(
            "Object.defineProperty(navigator, 'clipboard', { value: undefined });",
            vec![],
        )
        .await
        .unwrap();
    press(&client, screen, "#create-room").await;
    wait_for(&client, "#invite-link").await;
    let lines = client
        .execute(
            "return document.getElementById('invite-code').getClientRects().length;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        lines,
        serde_json::json!(1),
        "the code is broken across lines"
    );
    press(&client, screen, "#copy-link").await;
    // Said beside the button, in the room's box.
    let said = wait_for_text(&client, "#room-box #notice", |t| !t.is_empty()).await;
    assert!(
        said.starts_with("Link copied") || said.starts_with("The link is selected"),
        "{said}"
    );
    // The link is selected for the player either way, and stays selected while the lobby moves.
    let selected = client
        .execute(
            "return [getSelection().toString(), document.getElementById('invite-link').href];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(selected[0], selected[1]);
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_has_an_icon_and_a_manifest() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const manifest = document.querySelector('link[rel=manifest]').href;
             Promise.all(['/favicon.ico', manifest, '/icon-192.png', '/icon-512.png'].map((u) =>
               fetch(u).then((r) => [r.status, r.headers.get('content-type')])))
               .then(async (answers) => {
                 const body = await (await fetch(manifest)).json();
                 done({ answers, icons: body.icons.map((i) => i.sizes), start: body.start_url });
               })
               .catch((e) => done(String(e)));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        found,
        serde_json::json!({
            "answers": [[200, "image/x-icon"], [200, "application/manifest+json"],
                        [200, "image/png"], [200, "image/png"]],
            "icons": ["192x192", "512x512"],
            "start": "/",
        })
    );
    // The manifest is allowed by the page's policy: no violation reported.
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
