//! A real headless Chromium driven over WebDriver (Debian's `chromium` and `chromium-driver`):
//! one `chromedriver` per test on a free port, and as many browser sessions (each its own
//! profile, so its own localStorage) as a test needs.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MOUSE_BUTTON_LEFT, MouseActions, PointerAction,
    TouchActions,
};
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::WAIT;

/// A running `chromedriver`, stopped when dropped.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    url: String,
    /// chromedriver's `TMPDIR`: the browsers' profiles, removed with the driver even when a
    /// test ends without closing its sessions.
    profiles: tempfile::TempDir,
}

impl Driver {
    /// Starts one, or `None` (said loudly) on a machine without Chromium; in CI (`CI` set) a
    /// missing Chromium fails the test instead.
    pub async fn start() -> Option<Driver> {
        let missing = ["chromium", "chromedriver"]
            .into_iter()
            .find(|program| which(program).is_none());
        if let Some(program) = missing {
            assert!(
                std::env::var_os("CI").is_none(),
                "{program} is missing, and CI must run the browser tests"
            );
            eprintln!("SKIPPED: {program} is not installed; .ci/run installs it");
            return None;
        }
        // A free port is found by binding and letting go, so another test may take it before
        // chromedriver does: then chromedriver exits, and another port is tried.
        for _ in 0..5 {
            if let Some(driver) = Driver::launch().await {
                return Some(driver);
            }
        }
        panic!("chromedriver did not start");
    }

    /// Starts chromedriver on a free port and waits until it answers its `/status` as itself;
    /// `None` if it exits first (its port was taken meanwhile).
    async fn launch() -> Option<Driver> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let profiles = tempfile::tempdir().expect("a directory for the browsers' profiles");
        // Held by the driver at once, so that it is killed however this ends.
        let mut driver = Driver {
            child: Command::new("chromedriver")
                .arg(format!("--port={port}"))
                .env("TMPDIR", profiles.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver runs"),
            url: format!("http://127.0.0.1:{port}"),
            profiles,
        };
        for _ in 0..200 {
            if driver.child.try_wait().ok().flatten().is_some() {
                return None;
            }
            if chromedriver_ready(port).await {
                return Some(driver);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("chromedriver did not answer on port {port}");
    }

    /// A new browser session: a fresh headless Chromium profile, a desktop window whose page
    /// is 1280×800.
    pub async fn session(&self) -> Client {
        let client = self.open(None).await;
        // The window's size counts its frame: sized so that the page itself is 1280×800.
        let sizes = client
            .execute(
                "return [outerWidth - innerWidth, outerHeight - innerHeight];",
                vec![],
            )
            .await
            .expect("the page answers");
        let frame = |i: usize| sizes[i].as_u64().unwrap_or(0) as u32;
        client
            .set_window_size(1280 + frame(0), 800 + frame(1))
            .await
            .expect("the window resizes");
        client
    }

    /// A new browser session as a phone: a 390×844 screen at three device pixels a CSS pixel,
    /// touch events, a mobile user agent.
    pub async fn phone(&self) -> Client {
        self.open(Some(phone_metrics())).await
    }

    /// A new browser session on `screen`: [`Driver::session`] or [`Driver::phone`].
    pub async fn on(&self, screen: Screen) -> Client {
        match screen {
            Screen::Desktop => self.session().await,
            Screen::Phone => self.phone().await,
        }
    }
}

/// Chromium's emulation of a 390×844 phone with touch.
fn phone_metrics() -> serde_json::Value {
    json!({
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0, "touch": true, "mobile": true},
        "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
    })
}

impl Driver {
    async fn open(&self, mobile: Option<serde_json::Value>) -> Client {
        let mut caps = Capabilities::new();
        let binary = which("chromium").expect("checked at start");
        let mut options = json!({
            "binary": binary,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,900",
                     // Nothing but the server under test is reachable: no calls home.
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--no-first-run"],
        });
        if let Some(mobile) = mobile {
            options["mobileEmulation"] = mobile;
        }
        caps.insert("goog:chromeOptions".to_owned(), options);
        // The TLS test's certificate is made at test time and trusted by nobody.
        caps.insert("acceptInsecureCerts".to_owned(), json!(true));
        ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a browser session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The browsers outlive their driver for a moment; what they write meanwhile goes too.
        let _ = std::fs::remove_dir_all(self.profiles.path());
    }
}

/// Whether chromedriver itself answers on `port`: its `/status` says it is ready (another
/// program that took the port would not).
async fn chromedriver_ready(port: u16) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return false;
    };
    // Its host check wants the port in `Host`.
    let request =
        format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return false;
    }
    let read = async {
        let mut answer = Vec::new();
        let mut chunk = [0; 1024];
        while let Ok(n @ 1..) = stream.read(&mut chunk).await {
            answer.extend_from_slice(&chunk[..n]);
            if String::from_utf8_lossy(&answer).contains("\"ready\":true") {
                return true;
            }
        }
        false
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .unwrap_or(false)
}

fn which(program: &str) -> Option<String> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| format!("{dir}/{program}"))
        .find(|path| std::path::Path::new(path).is_file())
}

/// The two screens the page is tried on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// A 1280×800 desktop, pressed with a mouse.
    Desktop,
    /// A 390×844 phone, pressed with a finger (touch events).
    Phone,
}

/// Presses the element `css` as a person on `screen` does: a mouse click on the desktop, a tap
/// on the phone (scrolled into view first); found again if the page redrew it meanwhile.
pub async fn press(client: &Client, screen: Screen, css: &str) {
    if screen == Screen::Desktop {
        return click(client, css).await;
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Ok(element) = client.find(Locator::Css(css)).await
            && client
                .execute(
                    "arguments[0].scrollIntoView({block: 'center'});",
                    vec![json!(&element)],
                )
                .await
                .is_ok()
        {
            let mut finger = TouchActions::new("finger".to_owned());
            for action in pointer_press(element, Duration::from_millis(60)) {
                finger = finger.then(action);
            }
            let tapped = client.perform_actions(finger).await.is_ok();
            client.release_actions().await.expect("the finger lifts");
            if tapped {
                return;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{css} could not be tapped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Opens the menu whose toggle `css` matches (a button with `aria-expanded`): presses it until it
/// says it is open. A press may land while the page redraws, and a second press of an open menu
/// closes it, so the toggle's own state, not the press, says when it is done.
pub async fn open_menu(client: &Client, screen: Screen, css: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    let open = format!("{css}[aria-expanded=\"true\"]");
    loop {
        if client.find(Locator::Css(&open)).await.is_ok() {
            return;
        }
        press(client, screen, css).await;
        let waited = client
            .wait()
            .at_most(Duration::from_secs(3))
            .for_element(Locator::Css(&open))
            .await;
        if waited.is_ok() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the menu {css} did not open: {}",
            page_state(client).await
        );
    }
}

/// Waits until `css` matches an element (within [`WAIT`]); failing, says what the page showed.
pub async fn wait_for(client: &Client, css: &str) -> fantoccini::elements::Element {
    match client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
    {
        Ok(element) => element,
        Err(err) => panic!("{css} did not appear: {err}; {}", page_state(client).await),
    }
}

/// What the page shows, for a failure's message: its address, its `body` data and its text.
pub async fn page_state(client: &Client) -> String {
    let script = "return `at ${location.hash}, body ${JSON.stringify(document.body.dataset)}: \
                  ${document.body.innerText.slice(0, 1500)}`";
    match client.execute(script, vec![]).await {
        Ok(serde_json::Value::String(text)) => text,
        other => format!("(the page could not be read: {other:?})"),
    }
}

/// Clicks the element `css` matches, finding it again if the page redrew it meanwhile.
pub async fn click(client: &Client, css: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Ok(element) = client.find(Locator::Css(css)).await
            && element.click().await.is_ok()
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{css} could not be clicked"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The attribute `name` of the element `css` matches, once there is one (found again if the
/// page redrew it meanwhile).
pub async fn attr(client: &Client, css: &str, name: &str) -> Option<String> {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Ok(element) = client.find(Locator::Css(css)).await
            && let Ok(value) = element.attr(name).await
        {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{css} never appeared"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the page's text (of `css`) satisfies `test`; returns it.
pub async fn wait_for_text(client: &Client, css: &str, test: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Ok(element) = client.find(Locator::Css(css)).await
            && let Ok(text) = element.text().await
            && test(&text)
        {
            return text;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{css} never showed the text awaited"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Fails if the page has thrown an uncaught error or rejection.
pub async fn assert_no_errors(client: &Client) {
    let errors = client
        .execute("return window.noughtsErrors || null;", vec![])
        .await
        .expect("the page answers");
    assert_eq!(errors, json!([]), "uncaught errors in the page");
}

/// Presses and releases each key in turn on the focused element, as a keyboard does
/// ([`fantoccini::key::Key`] gives the special keys).
pub async fn keys(client: &Client, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".to_owned());
    for &key in keys {
        actions = actions
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
    }
    client
        .perform_actions(actions)
        .await
        .expect("the keys are pressed");
}

/// What has the focus: `{"tag", "id", "cell"}` (`cell` the focused board cell's `data-cell`).
pub async fn focused(client: &Client) -> serde_json::Value {
    client
        .execute(
            "const e = document.activeElement;
             return {tag: e ? e.tagName.toLowerCase() : null, id: e && e.id || null,
                     cell: e && e.dataset ? (e.dataset.cell ?? null) : null};",
            vec![],
        )
        .await
        .expect("the page answers")
}

/// Presses the element `css` with a real mouse as a person does: the pointer moves onto it, the
/// button goes down, stays down for `hold`, and comes up.
pub async fn hold_click(client: &Client, css: &str, hold: Duration) {
    let mut mouse = MouseActions::new("mouse".to_owned());
    for action in press_at(client, css, hold).await {
        mouse = mouse.then(action);
    }
    client
        .perform_actions(mouse)
        .await
        .expect("the mouse presses");
    client.release_actions().await.expect("the mouse lets go");
}

/// Taps the element `css` with a finger (touch events), holding it for `hold`.
pub async fn tap(client: &Client, css: &str, hold: Duration) {
    let mut finger = TouchActions::new("finger".to_owned());
    for action in press_at(client, css, hold).await {
        finger = finger.then(action);
    }
    client.perform_actions(finger).await.expect("the tap");
    client.release_actions().await.expect("the finger lifts");
}

/// A press on the element `css` (once there is one): onto its middle, down, held, up.
async fn press_at(client: &Client, css: &str, hold: Duration) -> [PointerAction; 4] {
    pointer_press(wait_for(client, css).await, hold)
}

/// A press on `element`: onto its middle, down, held, up.
fn pointer_press(element: fantoccini::elements::Element, hold: Duration) -> [PointerAction; 4] {
    [
        PointerAction::MoveToElement {
            element,
            duration: Some(Duration::from_millis(30)),
            x: 0.0,
            y: 0.0,
        },
        PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        },
        PointerAction::Pause { duration: hold },
        PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        },
    ]
}

/// The page's size in CSS pixels: `[innerWidth, innerHeight]`.
pub async fn viewport(client: &Client) -> serde_json::Value {
    client
        .execute("return [innerWidth, innerHeight];", vec![])
        .await
        .expect("the page answers")
}

/// The page's address after the `#`, or "" (waits for nothing).
pub async fn fragment(client: &Client) -> String {
    let url = client.current_url().await.expect("an address");
    url.fragment().unwrap_or("").to_owned()
}

/// Waits until the address's fragment is `want` ("" for none).
pub async fn wait_for_fragment(client: &Client, want: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = fragment(client).await;
        if now == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the address stayed at #{now}, not #{want}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
