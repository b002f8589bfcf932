//! Sessions without a connection: each is forgotten, and its open rooms closed, once it has been
//! away for a whole grace period, unless it comes back first. Started when a connection ends and
//! for the players of the games restored at start.

use std::sync::Arc;

use tokio::time::{Instant, sleep};
use tracing::debug;

use crate::lobby::invite_code;
use crate::session::Session;
use crate::shared::Shared;

/// Forgets `session` (and closes its rooms) once it has been without a connection for a whole
/// grace period, unless it comes back first.
pub(crate) fn expire_after_grace(shared: &Arc<Shared>, session: Arc<Session>) {
    let shared = shared.clone();
    let grace = shared.config.grace;
    let stop = shared.lifecycle.stop_games.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = sleep(grace) => {}
            () = stop.cancelled() => return,
        }
        if session.away_for(grace, Instant::now()) && shared.registry.expire_session(&session) {
            debug!(player = session.player.0, "session expired");
            close_rooms(&shared, &session);
        }
    });
}

/// Closes every room `session` has open, taking the public ones off the lobby.
pub(crate) fn close_rooms(shared: &Shared, session: &Session) {
    for code in session.take_rooms() {
        forget_room(shared, &code);
        if let Some(room) = shared.registry.rooms.close(&code, session.player)
            && !room.private
        {
            shared.lobby.remove_room(&invite_code::display(&room.code));
        }
    }
}

/// In a cluster, stops leading other nodes to the room with canonical code `code` here.
pub(crate) fn forget_room(shared: &Shared, code: &str) {
    if let Some(wing) = &shared.wing {
        wing.forget_room(code);
    }
}
