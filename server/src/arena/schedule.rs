//! The server's own arenas (`Config::arena_schedule`): an hourly classic blitz and a daily qubic,
//! each opened an hour before it starts, so the lobby lists it as starting soon. Each has a slot
//! (its kind and start) that the store keeps unique: whichever node opens it first, there is one.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{ArenaId, ClockSpec, Variant};
use tracing::info;

use crate::shared::Shared;
use crate::store::{StoredArena, now_ms};

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;
/// How often the schedule is looked at.
const EVERY: Duration = Duration::from_secs(60);

/// One of the server's arenas, as the schedule repeats it.
struct Scheduled {
    /// Its slot's kind and the arena's name.
    kind: &'static str,
    name: &'static str,
    variant: Variant,
    clock: ClockSpec,
    /// It repeats every `period_ms`, starting `offset_ms` into the period.
    period_ms: u64,
    offset_ms: u64,
    length_ms: u64,
}

/// The schedule.
const SCHEDULE: [Scheduled; 2] = [
    Scheduled {
        kind: "hourly-classic-blitz",
        name: "Hourly classic blitz",
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        period_ms: HOUR_MS,
        offset_ms: 0,
        length_ms: 57 * 60_000,
    },
    Scheduled {
        kind: "daily-qubic",
        name: "Daily qubic",
        variant: Variant::Qubic,
        clock: ClockSpec {
            initial_ms: 300_000,
            increment_ms: 3_000,
        },
        period_ms: DAY_MS,
        offset_ms: 18 * HOUR_MS,
        length_ms: HOUR_MS,
    },
];

/// Opens the server's arenas as they come due, until the server stops.
pub(crate) async fn keep_schedule(shared: Arc<Shared>) {
    let stop = shared.lifecycle.stop_games.clone();
    loop {
        for scheduled in &SCHEDULE {
            open_next(&shared, scheduled).await;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(EVERY) => {}
        }
    }
}

/// Opens the next arena of `scheduled` if it starts within the hour and is not open yet.
async fn open_next(shared: &Arc<Shared>, scheduled: &Scheduled) {
    let now = now_ms();
    let period = now.saturating_sub(scheduled.offset_ms) / scheduled.period_ms;
    let start_ms = (period + 1) * scheduled.period_ms + scheduled.offset_ms;
    if start_ms > now + HOUR_MS || shared.registry.arenas.has_named(scheduled.name, start_ms) {
        return;
    }
    let arena = StoredArena {
        id: ArenaId(0),
        name: scheduled.name.to_owned(),
        variant: scheduled.variant,
        clock: scheduled.clock,
        start_ms,
        end_ms: start_ms + scheduled.length_ms,
        code: None,
        creator: None,
        slot: Some(format!("{}-{start_ms}", scheduled.kind)),
        bots_only: false,
        finished_ms: None,
    };
    if let Ok(Some(_)) = super::opening::add(shared, arena).await {
        info!(kind = scheduled.kind, start_ms, "scheduled arena opened");
    }
}
