//! The lobby: `subscribe_lobby` and `unsubscribe_lobby`. A subscriber gets the whole listing, then
//! every change.

use std::sync::Arc;

use noughts_protocol::RequestId;

use super::client::{Client, Reply};
use crate::session::Session;

impl Client {
    pub(super) fn subscribe_lobby(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        session.set_lobby(true);
        self.shared.lobby.subscribe(self.out.clone(), id);
        Ok(())
    }

    pub(super) fn unsubscribe_lobby(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        session.set_lobby(false);
        self.shared.lobby.unsubscribe(self.out.conn);
        self.ok(id);
        Ok(())
    }
}
