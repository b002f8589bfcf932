//! Which token each open connection was welcomed with, by player, so that a session ended by
//! `revoke_session` or `change_password` closes its open connections on this node at once
//! rather than when they next drop.

use std::collections::HashMap;
use std::sync::Mutex;

use noughts_protocol::{PlayerId, close};

use crate::net::outbound::{Close, ConnId, Outbound};
use crate::store::TokenHash;

/// How a connection whose session was ended is closed.
const SESSION_ENDED: Close = Close {
    code: close::LOGGED_OUT,
    reason: "this session was ended",
};

/// The open connections of each player, with the token each holds.
#[derive(Debug, Default)]
pub(crate) struct Live {
    conns: Mutex<HashMap<PlayerId, Vec<(TokenHash, Outbound)>>>,
}

impl Live {
    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<PlayerId, Vec<(TokenHash, Outbound)>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `out` was welcomed as `player` with `token`.
    pub(crate) fn welcomed(&self, player: PlayerId, token: TokenHash, out: &Outbound) {
        let mut conns = self.conns();
        let held = conns.entry(player).or_default();
        held.retain(|(_, held)| held.conn != out.conn);
        held.push((token, out.clone()));
    }

    /// Connection `conn` of `player` has closed.
    pub(crate) fn gone(&self, player: PlayerId, conn: ConnId) {
        let mut conns = self.conns();
        if let Some(held) = conns.get_mut(&player) {
            held.retain(|(_, out)| out.conn != conn);
            if held.is_empty() {
                conns.remove(&player);
            }
        }
    }

    /// Closes every open connection of `player` whose token `ended` says has stopped working;
    /// returns how many.
    pub(crate) fn close_ended(&self, player: PlayerId, ended: impl Fn(TokenHash) -> bool) -> usize {
        let mut conns = self.conns();
        let Some(held) = conns.get_mut(&player) else {
            return 0;
        };
        let mut closed = 0;
        held.retain(|(token, out)| {
            if ended(*token) {
                out.close(SESSION_ENDED);
                closed += 1;
                false
            } else {
                true
            }
        });
        closed
    }
}
