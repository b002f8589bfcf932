//! The web client's files, compiled into the binary from `server/web/`.

use sha2::{Digest, Sha256};

/// One file of the web client.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asset {
    pub content_type: &'static str,
    pub body: &'static [u8],
}

impl Asset {
    /// The entity tag: the start of the body's SHA-256, quoted.
    pub(super) fn etag(&self) -> String {
        let digest = Sha256::digest(self.body);
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        format!("\"{hex}\"")
    }
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const PNG: &str = "image/png";
const ICO: &str = "image/x-icon";
const MANIFEST: &str = "application/manifest+json";

/// Every file, by the path it is served at.
const ASSETS: &[(&str, Asset)] = &[
    ("/", asset(HTML, include_bytes!("../../../web/index.html"))),
    (
        "/index.html",
        asset(HTML, include_bytes!("../../../web/index.html")),
    ),
    (
        "/style.css",
        asset(CSS, include_bytes!("../../../web/style.css")),
    ),
    ("/app.js", asset(JS, include_bytes!("../../../web/app.js"))),
    ("/net.js", asset(JS, include_bytes!("../../../web/net.js"))),
    (
        "/board.js",
        asset(JS, include_bytes!("../../../web/board.js")),
    ),
    (
        "/views.js",
        asset(JS, include_bytes!("../../../web/views.js")),
    ),
    (
        "/game.js",
        asset(JS, include_bytes!("../../../web/game.js")),
    ),
    (
        "/lobby.js",
        asset(JS, include_bytes!("../../../web/lobby.js")),
    ),
    (
        "/arena.js",
        asset(JS, include_bytes!("../../../web/arena.js")),
    ),
    (
        "/play.js",
        asset(JS, include_bytes!("../../../web/play.js")),
    ),
    (
        "/notice.js",
        asset(JS, include_bytes!("../../../web/notice.js")),
    ),
    (
        "/evaluation.js",
        asset(JS, include_bytes!("../../../web/evaluation.js")),
    ),
    (
        "/replay.js",
        asset(JS, include_bytes!("../../../web/replay.js")),
    ),
    (
        "/sound.js",
        asset(JS, include_bytes!("../../../web/sound.js")),
    ),
    (
        "/account.js",
        asset(JS, include_bytes!("../../../web/account.js")),
    ),
    (
        "/moderation.js",
        asset(JS, include_bytes!("../../../web/moderation.js")),
    ),
    (
        "/records.js",
        asset(JS, include_bytes!("../../../web/records.js")),
    ),
    (
        "/league.js",
        asset(JS, include_bytes!("../../../web/league.js")),
    ),
    (
        "/profile.js",
        asset(JS, include_bytes!("../../../web/profile.js")),
    ),
    (
        "/state.js",
        asset(JS, include_bytes!("../../../web/state.js")),
    ),
    (
        "/updates.js",
        asset(JS, include_bytes!("../../../web/updates.js")),
    ),
    (
        "/errors.js",
        asset(JS, include_bytes!("../../../web/errors.js")),
    ),
    (
        "/manifest.webmanifest",
        asset(
            MANIFEST,
            include_bytes!("../../../web/manifest.webmanifest"),
        ),
    ),
    (
        "/favicon.ico",
        asset(ICO, include_bytes!("../../../web/favicon.ico")),
    ),
    (
        "/icon-192.png",
        asset(PNG, include_bytes!("../../../web/icon-192.png")),
    ),
    (
        "/icon-512.png",
        asset(PNG, include_bytes!("../../../web/icon-512.png")),
    ),
];

const fn asset(content_type: &'static str, body: &'static [u8]) -> Asset {
    Asset { content_type, body }
}

/// The file served at `path`, if any.
pub(super) fn find(path: &str) -> Option<Asset> {
    ASSETS
        .iter()
        .find(|(at, _)| *at == path)
        .map(|(_, asset)| *asset)
}
