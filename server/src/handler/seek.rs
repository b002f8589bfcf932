//! Quick match: `seek`, `cancel_seek` and `accept_seek`. A seek meets a waiting compatible one
//! (the same variant and rating, a clock of the same speed) or waits in its queue, listed in the
//! lobby, where any other player may accept it; two that meet start a game at once.

use std::sync::Arc;

#[cfg(feature = "cluster")]
use std::time::Duration;

use noughts_protocol::{ErrorCode, GameKind, RequestId, Seek, SeekId, SeekInfo, ServerMessage};
#[cfg(feature = "cluster")]
use tokio::time::timeout;

use super::client::{Client, Reply, coin_toss, refuse};
use super::limits::check_clock;
#[cfg(feature = "cluster")]
#[cfg(feature = "cluster")]
use crate::cluster::mail::{Mail, Who};
use crate::game::{self, Setup};
#[cfg(feature = "cluster")]
use crate::net::network::Network;
#[cfg(feature = "cluster")]
use crate::net::outbound::Outbound;
use crate::registry::games::Requester;
use crate::registry::{AcceptSeekError, Waiting};
use crate::rules::rating;
use crate::rules::sitter::Sitter;
use crate::session::{OpenSeek, SeekTerms, Session};
use crate::shared::Shared;

/// How long a seek waits for another node to start the game of the seek it takes there.
#[cfg(feature = "cluster")]
const TAKE_WAIT: Duration = Duration::from_secs(2);

/// Takes an open seek out of the queue and off the lobby (its seeker has already ended it).
pub(crate) fn withdraw_seek(shared: &Shared, seek: OpenSeek) {
    shared.registry.seeks.cancel(seek);
    shared.lobby.remove_seek(seek.id);
}

impl Client {
    pub(super) fn cancel_seek(&mut self, session: &Arc<Session>, id: Option<RequestId>) -> Reply {
        let Some(open) = session.seek().filter(|open| session.end_seek(open.id)) else {
            return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
        };
        withdraw_seek(&self.shared, open);
        self.ok(id);
        Ok(())
    }

    pub(super) async fn seek(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        request: Seek,
    ) -> Reply {
        let Seek {
            variant,
            clock,
            rated,
            bots,
        } = request;
        let key = SeekTerms {
            variant,
            clock,
            rated,
            bots,
            bot: session.is_bot(),
        };
        check_clock(clock)?;
        self.check_not_stopping()?;
        if rated {
            self.check_rated_allowed(session).await?;
        }
        if session.seek().is_some() {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        // Over its address's cap, a seek may still meet one that waits, but may not wait itself.
        let per_ip = self.shared.config.max_seeks_per_ip;
        let local = self.shared.registry.per_network.seek(self.network, per_ip);
        let slot = self.place("seek", local, per_ip).await;
        let may_wait = slot.is_some();
        let Some(id) = self.shared.registry.seeks.next_id() else {
            return refuse(
                ErrorCode::ServerFull,
                "the server cannot take seeks just now",
            );
        };
        let open = OpenSeek { id, key };
        if !session.start_seek(open, slot) {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        let seeking = ServerMessage::Seeking {
            seek: open.id,
            variant,
            clock,
        };
        if may_wait {
            // Before joining the queue, so a match made at once is told after it.
            self.out.reply(from.id.clone(), seeking.clone());
        }
        let listing = listing(session, open);
        let lobby = &self.shared.lobby;
        let moderation = self.shared.accounts.moderation.state();
        let blocked = |other| moderation.blocked(session.player, other);
        let paired =
            self.shared
                .registry
                .seeks
                .pair_or_wait(session, open, may_wait, &blocked, || {
                    lobby.add_seek(listing)
                });
        drop(moderation);
        let Some(met) = paired else {
            if may_wait {
                #[cfg(feature = "cluster")]
                if self.shared.wing.is_some() {
                    let (shared, session) = (self.shared.clone(), session.clone());
                    tokio::spawn(pair_elsewhere(shared, session, open, self.network));
                }
                return Ok(());
            }
            session.end_seek(open.id);
            return refuse(
                ErrorCode::LimitReached,
                format!("at most {per_ip} seeks may wait from one address; try again soon"),
            );
        };
        if !may_wait {
            self.out.reply(from.id.clone(), seeking);
        }
        meet(&self.shared, session, open, met);
        Ok(())
    }

    /// `accept_seek`: plays the seeker at once, on the seek's terms (a rated seek only by an
    /// account).
    pub(super) async fn accept_seek(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        seek: SeekId,
    ) -> Reply {
        #[cfg(feature = "cluster")]
        {
            let found = self.seek_node(seek).await;
            let message = noughts_protocol::ClientMessage::AcceptSeek { seek };
            if let Some(reply) = self.hand_to(found, from.id.clone(), message).await {
                return reply;
            }
        }
        self.check_not_stopping()?;
        let terms = self.shared.registry.seeks.terms(seek);
        if terms.is_some_and(|terms| terms.rated) {
            self.check_rated_allowed(session).await?;
        }
        // A person may take a bot's seek (that is choosing to play it); a bot may take only a
        // seek whose seeker chose to play bots.
        if session.is_bot() && terms.is_some_and(|terms| !terms.bot && !terms.bots) {
            return refuse(
                ErrorCode::NoBots,
                "that seek's player did not choose to play bots",
            );
        }
        let taken = {
            let moderation = self.shared.accounts.moderation.state();
            let blocked = |other| moderation.blocked(session.player, other);
            self.shared
                .registry
                .seeks
                .accept(seek, session.player, &blocked)
        };
        let (key, seeker) = match taken {
            Ok(taken) => taken,
            Err(AcceptSeekError::Blocked) => {
                return refuse(ErrorCode::Blocked, "one of you blocks the other");
            }
            Err(AcceptSeekError::NoSuchSeek) => {
                return refuse(ErrorCode::NoSuchSeek, "that seek is no longer waiting");
            }
            Err(AcceptSeekError::OwnSeek) => {
                return refuse(ErrorCode::OwnSeek, "that is your own seek");
            }
        };
        self.shared.lobby.remove_seek(seek);
        // The taker's own seek, if it had one, is over: it has a game now.
        if let Some(own) = session.seek().filter(|own| session.end_seek(own.id)) {
            withdraw_seek(&self.shared, own);
        }
        start_pair(&self.shared, [seeker, session.clone()], key, Some(from));
        Ok(())
    }
}

/// The lobby's listing of `session`'s seek `open`.
fn listing(session: &Session, open: OpenSeek) -> SeekInfo {
    let SeekTerms {
        variant,
        clock,
        rated,
        bots,
        bot,
    } = open.key;
    SeekInfo {
        seek: open.id,
        player: session.player,
        name: session.name(),
        rating: rating::points(session.ratings().get(variant).rating),
        variant,
        clock,
        rated,
        guest: !session.is_account(),
        bot,
        bots,
    }
}

/// `session`'s seek `open` has met a `waiting` one: that one leaves the lobby, this one ends, and
/// the game starts on the waiting seek's terms (its clock, where the two differed in speed alone).
fn meet(shared: &Arc<Shared>, session: &Arc<Session>, open: OpenSeek, waiting: Waiting) {
    shared.lobby.remove_seek(waiting.seek);
    if session.end_seek(open.id) {
        withdraw_seek(shared, open);
    }
    start_pair(
        shared,
        [waiting.seeker, session.clone()],
        waiting.terms,
        None,
    );
}

#[cfg(feature = "cluster")]
/// In a cluster, a seek waiting here meets the oldest pairable seek that waits on another node
/// and is older than it (so of two seeks on two nodes, just the newer one acts): this one stops
/// waiting, and that node starts the game as if this player had accepted its seek. If that seek
/// was taken meanwhile, this one waits again.
async fn pair_elsewhere(
    shared: Arc<Shared>,
    session: Arc<Session>,
    open: OpenSeek,
    network: Network,
) {
    let Some(cluster) = shared.wing.as_ref().map(|wing| wing.cluster.clone()) else {
        return;
    };
    for _ in 0..3 {
        let Ok(seeks) = cluster.seeks_elsewhere().await else {
            return;
        };
        let moderation = &shared.accounts.moderation;
        let older = seeks
            .into_iter()
            .filter(|(_, seek)| seek.seek < open.id && seek.player != session.player)
            .filter(|(_, seek)| !moderation.state().blocked(session.player, seek.player))
            .filter(|(_, seek)| terms_of(seek).pairable(open.key))
            .min_by_key(|(_, seek)| seek.seek);
        let Some((node, older)) = older else {
            return;
        };
        let Some(out) = session.outbounds().into_iter().next() else {
            return;
        };
        // Paired or withdrawn here meanwhile: nothing to do.
        if !session.end_seek(open.id) {
            return;
        }
        withdraw_seek(&shared, open);
        if take_seek_on(&shared, &session, network, &out, &node, older.seek).await {
            return;
        }
        if !session.start_seek(open, None) {
            return;
        }
        let listing = listing(&session, open);
        let paired = {
            let moderation = shared.accounts.moderation.state();
            let blocked = |other| moderation.blocked(session.player, other);
            shared
                .registry
                .seeks
                .pair_or_wait(&session, open, true, &blocked, || {
                    shared.lobby.add_seek(listing)
                })
        };
        if let Some(met) = paired {
            meet(&shared, &session, open, met);
            return;
        }
    }
}

#[cfg(feature = "cluster")]
/// Asks `node` to start a game of `session`'s player (on connection `out`) against the seeker of
/// its waiting seek `seek`; true once it has.
async fn take_seek_on(
    shared: &Shared,
    session: &Session,
    network: Network,
    out: &Outbound,
    node: &str,
    seek: SeekId,
) -> bool {
    let Some(wing) = &shared.wing else {
        return false;
    };
    let cluster = &wing.cluster;
    wing.links.link(out, session.player, network, node);
    let (mark, answer) = wing.marks.wait();
    let take = Mail::TakeSeek {
        from: cluster.node().to_owned(),
        conn: out.conn.0,
        who: Who::of(session, network),
        seek,
        mark,
    };
    let taken = match cluster.mail(node, &take).await {
        Ok(true) => matches!(timeout(TAKE_WAIT, answer).await, Ok(Ok(true))),
        _ => false,
    };
    wing.marks.forget(mark);
    taken
}

#[cfg(feature = "cluster")]
/// A seek listed by another node: the seeks waiting here that are newer and pairable go to meet
/// it (or an older one).
pub(crate) fn listed_elsewhere(shared: &Arc<Shared>, seek: &SeekInfo) {
    let key = terms_of(seek);
    for (session, open) in shared.registry.seeks.newer(key, seek.seek) {
        // The seek was made on another connection task; its address is not known here, and
        // matters only for the caps on rooms and seeks, which meeting a seek does not open.
        let network = Network::of(std::net::Ipv4Addr::UNSPECIFIED.into());
        tokio::spawn(pair_elsewhere(shared.clone(), session, open, network));
    }
}

/// Starts the game of two players paired by quick match, sides drawn at random. `from` (the one
/// who accepted a seek) gets the snapshot as the reply to its request.
fn start_pair(
    shared: &Arc<Shared>,
    players: [Arc<Session>; 2],
    terms: SeekTerms,
    from: Option<Requester>,
) {
    let SeekTerms {
        variant,
        clock,
        rated,
        ..
    } = terms;
    let mut seats = players.clone().map(Sitter::Human);
    if coin_toss() {
        seats.swap(0, 1);
    }
    let started = game::start(
        shared,
        Setup {
            variant,
            kind: GameKind::Human,
            seats,
            clock,
            owner: None,
            rated,
            listed: true,
            rematch_of: None,
            requester: from,
            watcher: None,
            on_end: None,
        },
    );
    if let Err(refusal) = started {
        // Both players hear why; the reply to the seek was already sent.
        for out in players.iter().flat_map(|player| player.outbounds()) {
            out.error(None, refusal.code, refusal.message.clone());
        }
    }
}

/// The terms of a seek another node lists.
#[cfg(feature = "cluster")]
fn terms_of(seek: &SeekInfo) -> SeekTerms {
    SeekTerms {
        variant: seek.variant,
        clock: seek.clock,
        rated: seek.rated,
        bots: seek.bots,
        bot: seek.bot,
    }
}
