//! Arenas: `list_arenas` (a page of the public ones upcoming or running), `create_arena`, and
//! what is asked of one arena (`join_arena`, `withdraw_arena`, `arena`, `unwatch_arena`,
//! `arena_page`), handed to its director, whose answer is sent when it comes; in a cluster, mailed
//! to the node that directs the arena when that is another node.

use std::sync::Arc;

use noughts_protocol::{
    ArenaId, ClientMessage, CreateArena, ErrorCode, LIST_ARENAS_DEFAULT, LIST_ARENAS_MAX,
    ListArenas, RequestId, ServerMessage,
};
use tokio::sync::oneshot;

use super::client::{Client, Reply, refuse};
use super::limits::check_clock;
use crate::arena;
#[cfg(feature = "cluster")]
use crate::registry::arenas::Follower;
use crate::registry::arenas::{ArenaAsk, ArenaRequest};
use crate::registry::games::Requester;
use crate::session::Session;

/// What a request for an arena is answered while the arena moves to another node.
#[cfg(feature = "cluster")]
const MOVING: &str = "the arena is moving to another node; try again in a moment";

impl Client {
    /// The arena requests, each to its handler.
    pub(super) async fn dispatch_arena(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        message: ClientMessage,
    ) -> Reply {
        #[cfg(feature = "cluster")]
        let asked = message.clone();
        let (arena, request) = match message {
            ClientMessage::ListArenas(request) => {
                self.list_arenas(id, request);
                return Ok(());
            }
            ClientMessage::CreateArena(request) => {
                return self.create_arena(session, id, request).await;
            }
            ClientMessage::JoinArena { arena, code } => (arena, ArenaRequest::Join { code }),
            ClientMessage::WithdrawArena { arena } => (arena, ArenaRequest::Withdraw),
            ClientMessage::Arena { arena, code } => (arena, ArenaRequest::View { code }),
            ClientMessage::UnwatchArena { arena } => (arena, ArenaRequest::Unwatch),
            ClientMessage::ArenaPage { arena, offset } => (arena, ArenaRequest::Page { offset }),
            _ => return refuse(ErrorCode::BadRequest, "not a request the server knows"),
        };
        #[cfg(feature = "cluster")]
        if let Some(reply) = self
            .arena_elsewhere(session, id.clone(), arena, &request, asked)
            .await
        {
            return reply;
        }
        self.ask_arena(session, id, arena, request)
    }

    /// In a cluster, notes whether this connection follows `arena` (so that it goes on
    /// following it wherever it moves), and hands `message` to the node that directs the arena
    /// when that is another node; `None` when this node answers it (it directs the arena, or
    /// has just taken it up because no node did).
    #[cfg(feature = "cluster")]
    async fn arena_elsewhere(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        arena: ArenaId,
        request: &ArenaRequest,
        message: ClientMessage,
    ) -> Option<Reply> {
        use super::remote::Where;
        let wing = self.shared.wing.as_ref().filter(|_| !self.stands_in)?;
        let arenas = &self.shared.registry.arenas;
        match request {
            ArenaRequest::Join { code } | ArenaRequest::View { code } => {
                let follower = Follower {
                    out: self.out.clone(),
                    session: session.clone(),
                    code: code.clone(),
                    network: self.network,
                };
                arenas.follow(arena, follower);
            }
            ArenaRequest::Unwatch => arenas.unfollow(arena, self.out.conn),
            ArenaRequest::Withdraw | ArenaRequest::Page { .. } => {}
        }
        if arenas.queue(arena).is_some() {
            return None;
        }
        let cluster = wing.cluster.clone();
        let holder = match cluster.slot_holder(&arena::slot_name(arena)).await {
            Ok(holder) => holder.filter(|node| node != cluster.node()),
            Err(_) => return Some(refuse(ErrorCode::Internal, MOVING)),
        };
        let Some(node) = holder else {
            // No node directs it (its node has just stopped): this one takes it up, if it is
            // an arena not finished.
            arena::direct_if_orphaned(&self.shared, arena).await;
            return None;
        };
        match self.hand_to(Where::There(node), id, message).await {
            Some(reply) => Some(reply),
            // Its node has gone, its slot not lapsed yet.
            None => Some(refuse(ErrorCode::Internal, MOVING)),
        }
    }

    /// One page of the public arenas upcoming or running; a `limit` outside 1 to 100 is taken as
    /// the nearest of them.
    fn list_arenas(&self, id: Option<RequestId>, request: ListArenas) {
        let limit = request
            .limit
            .unwrap_or(LIST_ARENAS_DEFAULT)
            .clamp(1, LIST_ARENAS_MAX);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let (arenas, more) = self.shared.registry.arenas.page(request.after, limit);
        let next = more.then(|| arenas.last().map(|a| a.arena)).flatten();
        self.out
            .reply(id, ServerMessage::ArenaList { arenas, next });
    }

    async fn create_arena(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        request: CreateArena,
    ) -> Reply {
        check_clock(Some(request.clock))?;
        let (info, code) = arena::create(&self.shared, session, request).await?;
        self.out
            .reply(id, ServerMessage::ArenaCreated { info, code });
        Ok(())
    }

    /// Hands `request` to the arena's director; its answer (or refusal) is sent when it comes.
    fn ask_arena(
        &self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        arena: ArenaId,
        request: ArenaRequest,
    ) -> Reply {
        let Some(queue) = self.shared.registry.arenas.queue(arena) else {
            return Err(arena::no_such_arena());
        };
        let (reply, answer) = oneshot::channel();
        let ask = ArenaAsk {
            from: Requester {
                player: session.player,
                out: self.out.clone(),
                id: id.clone(),
            },
            account: session.is_account(),
            bot: session.is_bot(),
            request,
            reply,
        };
        if queue.try_send(ask).is_err() {
            return refuse(ErrorCode::RateLimited, "the arena is busy; try again");
        }
        let out = self.out.clone();
        tokio::spawn(async move {
            match answer.await {
                // `ok` answers only a request that had an id.
                Ok(Ok(ServerMessage::Ok)) if id.is_none() => {}
                Ok(Ok(message)) => {
                    out.reply(id, message);
                }
                Ok(Err(refusal)) => out.error(id, refusal.code, refusal.message),
                Err(_) => out.error(id, ErrorCode::NoSuchArena, "the arena has closed"),
            }
        });
        Ok(())
    }
}
