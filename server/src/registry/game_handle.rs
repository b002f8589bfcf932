//! How the rest of the server reaches a game: a [`GameHandle`], whose methods are everything one
//! can ask of a game, and the [`Command`]s they queue for its actor. Nothing outside `game`
//! sees the actor itself or builds a command, so a game could live elsewhere behind the same
//! handle.

use std::sync::Arc;

use noughts_protocol::{ClaimOutcome, PlayerId, RequestId};
use tokio::sync::{mpsc, oneshot};

use crate::net::outbound::{ConnId, Outbound};
use crate::rules::Speaker;
use crate::session::Session;

/// Commands queued per game before senders wait.
pub(crate) const COMMAND_QUEUE: usize = 256;

/// How to reach a game's actor.
#[derive(Debug, Clone)]
pub(crate) struct GameHandle {
    /// The actor's command queue; bounded, so a flood waits rather than piles up.
    tx: mpsc::Sender<Command>,
}

impl GameHandle {
    /// The handle of the actor that reads `tx`'s queue.
    pub(crate) fn new(tx: mpsc::Sender<Command>) -> GameHandle {
        GameHandle { tx }
    }

    /// Queues a command; false if the game has closed meanwhile.
    async fn send(&self, command: Command) -> bool {
        self.tx.send(command).await.is_ok()
    }

    /// A player puts a mark on `cell`. Each of these answers false when the game has closed.
    pub(crate) async fn play(&self, from: Requester, cell: usize) -> bool {
        self.send(Command::Move { from, cell }).await
    }

    pub(crate) async fn resign(&self, from: Requester) -> bool {
        self.send(Command::Resign { from }).await
    }

    /// The player leaves for good (it logged out): resigns if the game is live, says nothing
    /// otherwise.
    pub(crate) async fn leave(&self, player: PlayerId) -> bool {
        self.send(Command::Leave { player }).await
    }

    pub(crate) async fn rematch(&self, from: Requester) -> bool {
        self.send(Command::Rematch { from }).await
    }

    /// Offers a draw, or accepts the opponent's offer.
    pub(crate) async fn offer_draw(&self, from: Requester) -> bool {
        self.send(Command::OfferDraw { from }).await
    }

    /// Asks to take the last move back, or accepts the opponent's request.
    pub(crate) async fn takeback(&self, from: Requester) -> bool {
        self.send(Command::Takeback { from }).await
    }

    /// Declines the opponent's pending offer.
    pub(crate) async fn decline(&self, from: Requester) -> bool {
        self.send(Command::Decline { from }).await
    }

    /// Withdraws the player's own pending offer.
    pub(crate) async fn cancel_offer(&self, from: Requester) -> bool {
        self.send(Command::CancelOffer { from }).await
    }

    /// Claims the game while the opponent is away.
    pub(crate) async fn claim(&self, from: Requester, outcome: ClaimOutcome) -> bool {
        self.send(Command::Claim { from, outcome }).await
    }

    /// Ends the game with no result before both sides have moved.
    pub(crate) async fn abort(&self, from: Requester) -> bool {
        self.send(Command::Abort { from }).await
    }

    /// The server's operator ends the game: aborted, unrated, both players told.
    pub(crate) async fn end_by_operator(&self) -> bool {
        self.send(Command::EndByOperator).await
    }

    /// This node's lease on the game lapsed or was lost: it stops being served here at once.
    pub(crate) async fn step_down(&self) -> bool {
        self.send(Command::StepDown).await
    }

    /// A chat line, already cleaned and checked, from the player called `name` (a guest or
    /// not); `watching` when they watch the game from another node.
    pub(crate) async fn chat(
        &self,
        from: Requester,
        speaker: Speaker,
        text: String,
        watching: bool,
    ) -> bool {
        self.send(Command::Chat {
            from,
            speaker,
            text,
            watching,
        })
        .await
    }

    /// Node `node` has `count` watchers of this game (a cluster's other nodes watch it through
    /// what it publishes).
    pub(crate) async fn remote_watchers(&self, node: String, count: usize) -> bool {
        self.send(Command::RemoteWatchers { node, count }).await
    }

    /// Starts watching (or, for a player, sends the snapshot again).
    pub(crate) async fn watch(&self, session: Arc<Session>, from: Requester) -> bool {
        self.send(Command::Watch { session, from }).await
    }

    /// Stops watching; `from` is absent when the connection went away rather than asked.
    pub(crate) async fn unwatch(&self, conn: ConnId, from: Option<Requester>) -> bool {
        self.send(Command::Unwatch { conn, from }).await
    }

    /// A player's new connection; returns once its snapshot is queued there, so a resume keeps
    /// the documented order.
    pub(crate) async fn attach(&self, player: PlayerId, out: Outbound) -> bool {
        let (done, answered) = oneshot::channel();
        if !self.send(Command::Attach { player, out, done }).await {
            return false;
        }
        let _ = answered.await;
        true
    }

    /// A player's connection `conn` went away.
    pub(crate) async fn detach(&self, player: PlayerId, conn: ConnId) -> bool {
        self.send(Command::Detach { player, conn }).await
    }
}

/// Who asked for something, where to answer, and the id the answer echoes.
#[derive(Debug, Clone)]
pub(crate) struct Requester {
    /// Who asks: decides whether they sit in the game.
    pub player: PlayerId,
    /// Their connection, for the reply.
    pub out: Outbound,
    /// The request's id, echoed by the reply.
    pub id: Option<RequestId>,
}

/// What a game is asked to do.
#[derive(Debug)]
pub(crate) enum Command {
    /// A player puts a mark on `cell`.
    Move {
        from: Requester,
        cell: usize,
    },
    Resign {
        from: Requester,
    },
    Rematch {
        from: Requester,
    },
    OfferDraw {
        from: Requester,
    },
    Takeback {
        from: Requester,
    },
    Decline {
        from: Requester,
    },
    CancelOffer {
        from: Requester,
    },
    /// The player claims the game while the opponent is away.
    Claim {
        from: Requester,
        outcome: ClaimOutcome,
    },
    Abort {
        from: Requester,
    },
    /// The server's operator ends the game (aborted).
    EndByOperator,
    /// This node's lease on the game lapsed or was lost: the game steps down here.
    StepDown,
    /// The player leaves for good: resign if live, nothing otherwise.
    Leave {
        player: PlayerId,
    },
    /// `text` is already cleaned and checked; `watching` if the speaker watches from another
    /// node.
    Chat {
        from: Requester,
        /// Who speaks, as the line shows them.
        speaker: Speaker,
        text: String,
        watching: bool,
    },
    /// Another node's count of this game's watchers.
    RemoteWatchers {
        node: String,
        count: usize,
    },
    /// Start watching (or, for a player, get the snapshot again).
    Watch {
        session: Arc<Session>,
        from: Requester,
    },
    /// Stop watching; `from` is absent when the connection went away rather than asked.
    Unwatch {
        conn: ConnId,
        from: Option<Requester>,
    },
    /// A player's new connection: send the snapshot there from now on. `done` is dropped once the
    /// snapshot is queued, so the connection can keep the documented order of a resume.
    Attach {
        player: PlayerId,
        out: Outbound,
        done: oneshot::Sender<()>,
    },
    /// A player's connection `conn` went away.
    Detach {
        player: PlayerId,
        conn: ConnId,
    },
    /// The AI seat to move at ply `ply` chose `cell`, after `takebacks` takebacks (a move
    /// chosen before a takeback is for a position that is gone).
    AiMove {
        ply: u32,
        cell: usize,
        takebacks: u32,
    },
}
