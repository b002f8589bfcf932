//! What every database must do with the moderation log: keep each fact whole, give ids that only
//! grow, read back in order from any id in pages, and keep it all across a reopening.

use noughts_protocol::{GameId, PlayerId};

use super::super::{ModerationEntry, StoreConfig};
use super::Fresh;

on_both_blocking!(the_moderation_log_keeps_every_fact_in_order_and_pages_from_any_id);

fn fact(kind: &str, n: u64) -> ModerationEntry {
    let operator = !matches!(kind, "mute" | "block" | "report");
    ModerationEntry {
        id: 0,
        at_ms: 1_000 + n,
        kind: kind.to_owned(),
        actor: (!operator).then_some(PlayerId(1)),
        operator: operator.then(|| "ops".to_owned()),
        target: (kind != "ban_range" && kind != "reserve").then_some(PlayerId(2)),
        game: (kind == "report" || kind == "end_game").then_some(GameId(7)),
        detail: match kind {
            "report" => "abuse".to_owned(),
            "ban_range" => "10.0.0.0/8".to_owned(),
            "reserve" => "Admin".to_owned(),
            _ => String::new(),
        },
        reason: format!("reason {n}: \"quoted\", ünïcödé"),
        until_ms: (kind == "chat_mute").then_some(99_000),
    }
}

fn the_moderation_log_keeps_every_fact_in_order_and_pages_from_any_id(db: Fresh) {
    let kinds = [
        "mute",
        "block",
        "report",
        "ban",
        "ban_range",
        "chat_mute",
        "reserve",
        "end_game",
    ];
    let mut written = Vec::new();
    {
        let mut backend = db.backend();
        assert!(backend.moderation_since(0, 10).unwrap().is_empty());
        let mut last = 0;
        for (n, kind) in kinds.iter().enumerate() {
            let mut entry = fact(kind, n as u64);
            let id = backend.add_moderation(&entry).unwrap();
            assert!(id > last, "ids only grow: {id} after {last}");
            last = id;
            entry.id = id;
            written.push(entry);
        }
        assert_eq!(backend.moderation_since(0, 100).unwrap(), written);
        // Pages: from any id, at most the limit.
        assert_eq!(backend.moderation_since(0, 3).unwrap(), written[..3]);
        assert_eq!(
            backend.moderation_since(written[2].id, 3).unwrap(),
            written[3..6]
        );
        assert!(backend.moderation_since(last, 10).unwrap().is_empty());
    }
    // A database file or server keeps the log; the memory store's lives with its process.
    if !matches!(db.config, StoreConfig::Memory) {
        let mut reopened = db.backend();
        assert_eq!(reopened.moderation_since(0, 100).unwrap(), written);
        let id = reopened.add_moderation(&fact("unban", 9)).unwrap();
        assert!(id > written.last().unwrap().id);
    }
}
