//! A real headless Chromium driven over WebDriver (Debian's `chromium` and `chromium-driver`):
//! one `chromedriver` per test on a free port, and as many browser sessions (each its own
//! profile, so its own localStorage) as a test needs.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

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
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        // Held by the driver at once, so that it is killed however this ends.
        let driver = Driver {
            child: Command::new("chromedriver")
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver runs"),
            url: format!("http://127.0.0.1:{port}"),
        };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Some(driver);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("chromedriver did not start");
    }

    /// A new browser session: a fresh headless Chromium profile.
    pub async fn session(&self) -> Client {
        let mut caps = Capabilities::new();
        let binary = which("chromium").expect("checked at start");
        caps.insert(
            "goog:chromeOptions".to_owned(),
            json!({
                "binary": binary,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,900",
                         // Nothing but the server under test is reachable: no calls home.
                         "--disable-background-networking", "--disable-component-update",
                         "--disable-sync", "--no-first-run"],
            }),
        );
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
    }
}

fn which(program: &str) -> Option<String> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| format!("{dir}/{program}"))
        .find(|path| std::path::Path::new(path).is_file())
}

/// Waits until `css` matches an element (within [`WAIT`]).
pub async fn wait_for(client: &Client, css: &str) -> fantoccini::elements::Element {
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|err| panic!("{css} did not appear: {err}"))
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
