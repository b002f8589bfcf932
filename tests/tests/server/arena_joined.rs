//! Which arenas a player is in, as every connection of theirs hears it: joining in one tab tells
//! the other (and nobody else), withdrawing likewise, and a connection that says hello again (a
//! reloaded page, another device) is told, right after `welcome`, each arena it is in and only
//! those; a guest is told none.

use std::time::{SystemTime, UNIX_EPOCH};

use noughts_protocol::{ArenaId, ClientMessage, ClockSpec, CreateArena, ServerMessage, Variant};
use noughts_tests::accounts::make_account;
use noughts_tests::hello::come_back;
use noughts_tests::on_both_stores;
use noughts_tests::stores::Db;
use noughts_tests::{Client, TestServer};

on_both_stores!(every_tab_and_every_reload_knows_the_arenas_a_player_is_in);

/// Opens an arena that starts in ten minutes (nobody is paired meanwhile): its id.
async fn upcoming(client: &mut Client, id: u64, name: &str) -> ArenaId {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let request = CreateArena {
        name: Some(name.to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        start_ms: Some(u64::try_from(now.as_millis()).unwrap() + 600_000),
        length_secs: 1800,
        private: false,
        bots_only: false,
    };
    match client
        .request(id, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    }
}

fn told(arena: ArenaId, joined: bool) -> impl Fn(&ServerMessage) -> bool {
    move |m| *m == ServerMessage::ArenaJoined { arena, joined }
}

/// Every frame `client` gets up to the answer to a `ping` sent now.
async fn until_pong(client: &mut Client) -> Vec<ServerMessage> {
    client.send(ClientMessage::Ping).await;
    let mut frames = Vec::new();
    loop {
        match client.next().await.message {
            ServerMessage::Pong => return frames,
            other => frames.push(other),
        }
    }
}

/// The `arena_joined` frames among `frames`, as `(arena, joined)`.
fn joined_frames(frames: &[ServerMessage]) -> Vec<(u64, bool)> {
    let told = frames.iter().filter_map(|m| match m {
        ServerMessage::ArenaJoined { arena, joined } => Some((arena.0, *joined)),
        _ => None,
    });
    told.collect()
}

async fn every_tab_and_every_reload_knows_the_arenas_a_player_is_in(db: Db) {
    let Some(own) = db.fresh("arena_joined") else {
        return;
    };
    let server = TestServer::start(own.config()).await;
    let url = server.url();
    let mut tab = Client::join(&url, "tabs").await;
    make_account(&mut tab).await;
    // A second tab: the same account's session, on a connection of its own.
    let mut other = Client::resume(&url, "tabs", &tab.token).await;
    let mut rival = Client::join(&url, "rival").await;
    make_account(&mut rival).await;
    let noon = upcoming(&mut tab, 1, "Noon arena").await;
    let night = upcoming(&mut rival, 1, "Night arena").await;
    let join = |arena| ClientMessage::JoinArena { arena, code: None };

    // Joined in one tab: both tabs hear it, the asking one before its standings.
    match tab.request(2, join(noon)).await {
        ServerMessage::Arena(view) => assert!(view.me.is_some()),
        other => panic!("expected the arena, got {other:?}"),
    }
    tab.saw(told(noon, true)).await;
    other.until(told(noon, true)).await;

    // Another player's joining is not told to this one's connections.
    assert!(matches!(
        rival.request(2, join(night)).await,
        ServerMessage::Arena(_)
    ));
    rival.saw(told(night, true)).await;
    let heard = joined_frames(&until_pong(&mut tab).await);
    assert!(!heard.iter().any(|(a, _)| *a == night.0), "{heard:?}");

    // Joined from the second tab, withdrawn from the first: each hears both.
    assert!(matches!(
        other.request(3, join(night)).await,
        ServerMessage::Arena(_)
    ));
    tab.until(told(night, true)).await;
    let withdraw = ClientMessage::WithdrawArena { arena: night };
    assert_eq!(tab.request(4, withdraw).await, ServerMessage::Ok);
    other.until(told(night, false)).await;
    tab.saw(told(night, false)).await;

    // A reload is told, right after its welcome, the arenas the player is in: only the one.
    let (_, frames) = come_back(&url, &other.token).await;
    assert_eq!(joined_frames(&frames), [(noon.0, true)], "{frames:?}");
    // The rival's reload: the rival's own arena only; a guest's: none.
    let (_, frames) = come_back(&url, &rival.token).await;
    assert_eq!(joined_frames(&frames), [(night.0, true)], "{frames:?}");
    let guest = Client::join(&url, "guest").await;
    let (_, frames) = come_back(&url, &guest.token).await;
    assert_eq!(joined_frames(&frames), [], "{frames:?}");
}
