//! Which arenas a player is in, as each of their connections is told (`arena_joined`): every
//! connection when the player joins or withdraws, and a connection just welcomed, once for each
//! arena not finished that the player is in (read from the store, which every node shares).

use noughts_protocol::{ArenaId, PlayerId, ServerMessage};
use tracing::error;

use crate::net::outbound::{Outbound, frame};
use crate::registry::games::Requester;
use crate::shared::Shared;

/// Tells each connection of the player who asked (the asking one among them, first the others)
/// whether they are in `arena` now, so that every tab marks it so.
pub(super) fn tell(shared: &Shared, from: &Requester, arena: ArenaId, joined: bool) {
    let told = frame(None, ServerMessage::ArenaJoined { arena, joined });
    let session = shared.registry.session(from.player);
    let others = session.map(|s| s.outbounds()).unwrap_or_default();
    let others = others.iter().filter(|out| out.conn != from.out.conn);
    for out in others.chain([&from.out]) {
        out.send(told.clone());
    }
}

/// Tells `out`, a connection just welcomed as `player` (an account), each arena not finished
/// that the player is in. A store that cannot answer leaves it untold: the arenas' own frames
/// still say who is in them.
pub(crate) async fn tell_welcomed(shared: &Shared, out: &Outbound, player: PlayerId) {
    match shared.store.arenas_joined(player).await {
        Ok(arenas) => {
            for arena in arenas {
                out.reply(
                    None,
                    ServerMessage::ArenaJoined {
                        arena,
                        joined: true,
                    },
                );
            }
        }
        Err(err) => error!(cause = %err, "cannot read the arenas a player is in"),
    }
}
