//! Opening an arena: made by an account's request ([`create`]), by the schedule, or carried on
//! from the store at start ([`restore_all`]) or, in a cluster, by the node that takes its slot
//! (see `keeper`); each gets a director task.

use std::sync::Arc;

use noughts_protocol::{
    ARENA_AHEAD_MS, ARENA_MAX_SECS, ARENAS_PER_ACCOUNT, ArenaId, ArenaInfo, CreateArena, ErrorCode,
    MAX_ARENA_NAME_CHARS, Variant,
};
use tracing::{error, info};

use crate::error::Refusal;
use crate::lobby::invite_code;
use crate::session::Session;
use crate::shared::Shared;
use crate::store::{StoredArena, now_ms};

use super::director::open;

/// Carries on every arena the store holds unfinished (after the games are restored, so that
/// the arenas' games in play are found live).
pub(crate) async fn restore_all(shared: &Arc<Shared>) {
    let arenas = match shared.store.unfinished_arenas().await {
        Ok(arenas) => arenas,
        Err(err) => {
            error!(cause = %err, "cannot read the arenas; none is carried on");
            return;
        }
    };
    for arena in arenas {
        match shared.store.arena_state(arena.id).await {
            Ok((lines, games)) => {
                info!(arena = arena.id.0, "arena carried on");
                open(shared, arena, lines, games, None);
            }
            Err(err) => error!(arena = arena.id.0, cause = %err, "cannot read an arena"),
        }
    }
}

/// Opens an arena stored now; `None` when its slot was taken already.
pub(super) async fn add(
    shared: &Arc<Shared>,
    arena: StoredArena,
) -> Result<Option<ArenaInfo>, Refusal> {
    match shared.store.add_arena(arena).await {
        #[cfg(feature = "cluster")]
        Ok(Some(arena)) if shared.wing.is_some() => {
            // Directed by whichever node takes its slot first: this one, as a rule.
            let info = super::keeper::bare_info(&arena);
            let creator = arena.creator.as_ref().map(|(player, _)| *player);
            if !super::keeper::direct(shared, arena).await {
                shared
                    .registry
                    .arenas
                    .elsewhere(info.clone(), creator, None);
            }
            Ok(Some(
                shared.registry.arenas.info(info.arena).unwrap_or(info),
            ))
        }
        Ok(Some(arena)) => Ok(Some(open(shared, arena, Vec::new(), Vec::new(), None))),
        Ok(None) => Ok(None),
        Err(err) => {
            error!(cause = %err, "cannot store an arena");
            Err(Refusal::new(
                ErrorCode::Internal,
                "the arena could not be stored",
            ))
        }
    }
}

/// A name for an arena that was given none: its variant and clock.
fn default_name(variant: Variant, initial_ms: u64, increment_ms: u64) -> String {
    let variant = format!("{variant:?}");
    format!("{variant} {}+{}", initial_ms / 60_000, increment_ms / 1000)
}

/// Opens the arena `request` asks for, created by `session` (an account, with fewer unfinished
/// arenas than [`ARENAS_PER_ACCOUNT`]); returns it and a private one's invite code.
pub(crate) async fn create(
    shared: &Arc<Shared>,
    session: &Session,
    request: CreateArena,
) -> Result<(ArenaInfo, Option<String>), Refusal> {
    if !session.is_account() {
        return Err(Refusal::new(
            ErrorCode::NotAnAccount,
            "only an account may create an arena",
        ));
    }
    if shared.registry.arenas.unfinished_by(session.player) >= ARENAS_PER_ACCOUNT {
        return Err(Refusal::new(
            ErrorCode::LimitReached,
            format!("an account may have {ARENAS_PER_ACCOUNT} arenas open at once"),
        ));
    }
    let now = now_ms();
    let start_ms = request.start_ms.unwrap_or(now).max(now);
    let min = shared.config.arena_min_secs;
    if !(min..=ARENA_MAX_SECS).contains(&request.length_secs) {
        return Err(Refusal::new(
            ErrorCode::BadArena,
            format!("an arena lasts {min} to {ARENA_MAX_SECS} seconds"),
        ));
    }
    if start_ms > now + ARENA_AHEAD_MS {
        return Err(Refusal::new(
            ErrorCode::BadArena,
            "an arena starts within a week",
        ));
    }
    let clock = request.clock;
    let name = match request
        .name
        .as_deref()
        .map(noughts_protocol::normalize_name)
    {
        Some(Ok(name)) if name.chars().count() <= MAX_ARENA_NAME_CHARS => name,
        Some(_) => {
            return Err(Refusal::new(
                ErrorCode::BadArena,
                format!(
                    "an arena's name has 1 to {MAX_ARENA_NAME_CHARS} characters, \
                     none of them control characters"
                ),
            ));
        }
        None => default_name(request.variant, clock.initial_ms, clock.increment_ms),
    };
    let code = request.private.then(invite_code::generate);
    let arena = StoredArena {
        id: ArenaId(0),
        name,
        variant: request.variant,
        clock,
        start_ms,
        end_ms: start_ms + u64::from(request.length_secs) * 1000,
        code: code.clone(),
        creator: Some((session.player, session.name())),
        slot: None,
        bots_only: request.bots_only,
        finished_ms: None,
    };
    match add(shared, arena).await? {
        Some(info) => Ok((info, code.as_deref().map(invite_code::display))),
        None => Err(Refusal::new(
            ErrorCode::Internal,
            "the arena could not be stored",
        )),
    }
}
