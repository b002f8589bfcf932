//! Bots in the engines' league over a cluster. A variant's league games are started by the node
//! holding its war slot, which pairs a bot only while the bot is connected to it; so each node
//! has its own connections of bots entered in a league stand in on that holder, as an arena's
//! players stand in on its director's node: at once when a bot enters here, and again whenever
//! the slot moves (its holder died or stopped). The holder then starts the bot's games as any
//! game with a player of another node, and the bot plays them over its own connection.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::Variant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::remote::attach_elsewhere;
use crate::cluster::nodes::Sighting;
use crate::game::war_slot::slot_name as war_slot_name;
use crate::net::network::Network;
use crate::net::outbound::Outbound;
use crate::session::Session;
use crate::shared::Shared;

/// How often, at most and at least, a node looks where its league bots should stand in.
const LOOK_BETWEEN: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(2));

/// Until `stop`, every third of a lease: for each variant with a league, makes every connection
/// here of a bot entered in it stand in on the node holding the variant's war slot, if that is
/// another node and the connection has no stand-in there yet, or the slot has just moved there.
pub(crate) async fn keep_league_bots_known(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(wing) = &shared.wing else {
        return;
    };
    let every = (wing.cluster.lease() / 3).clamp(LOOK_BETWEEN.0, LOOK_BETWEEN.1);
    let mut holders = HashMap::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.cancelled() => return,
        }
        for &variant in &shared.config.war_variants {
            if shared.leagues.runs(variant) {
                look(&shared, variant, &mut holders).await;
            }
        }
    }
}

/// One look at `variant`'s league; `holders` is where each variant's slot was last seen (a node
/// restarted under the same name holds none of its old process's stand-ins).
async fn look(shared: &Arc<Shared>, variant: Variant, holders: &mut HashMap<Variant, Sighting>) {
    let Some(holder) = holder(shared, variant).await else {
        return;
    };
    let incarnation = match &shared.wing {
        Some(wing) => wing.cluster.incarnation_of(&holder).await,
        None => None,
    };
    let moved = holders
        .entry(variant)
        .or_default()
        .see(&holder, incarnation);
    let bots = match shared.leagues.entered(&shared.store, variant).await {
        Ok(bots) => bots,
        Err(err) => {
            warn!(cause = %err, %variant, "cannot read the bots in the league");
            return;
        }
    };
    for player in bots {
        let Some(session) = shared.registry.session(player).filter(|s| s.is_bot()) else {
            continue;
        };
        for out in session.outbounds() {
            if !out.is_stand_in() {
                make_known(shared, &session, &out, None, &holder, moved).await;
            }
        }
    }
}

/// The node holding `variant`'s war slot, if it is another node than this one.
async fn holder(shared: &Shared, variant: Variant) -> Option<String> {
    let cluster = &shared.wing.as_ref()?.cluster;
    match cluster.slot_holder(&war_slot_name(variant)).await {
        Ok(holder) => holder.filter(|node| node != cluster.node()),
        Err(err) => {
            warn!(cause = %err, %variant, "cannot ask which node plays the league's games");
            None
        }
    }
}

/// Makes `out`, a connection here of `session`'s bot from `network` (as it was linked, if not
/// given), stand in on `holder`, unless it does already and `again` is false.
async fn make_known(
    shared: &Shared,
    session: &Session,
    out: &Outbound,
    network: Option<Network>,
    holder: &str,
    again: bool,
) {
    let Some(wing) = &shared.wing else {
        return;
    };
    if !again && wing.links.nodes_of(out.conn).iter().any(|n| n == holder) {
        return;
    }
    let network = network
        .or_else(|| wing.links.network_of(out.conn))
        .unwrap_or(Network::of(Ipv4Addr::UNSPECIFIED.into()));
    debug!(player = session.player.0, %holder, "a league bot stands in on the league's node");
    attach_elsewhere(shared, session, out, network, vec![holder.to_owned()]).await;
}

/// A bot has just entered `variant`'s league on `out`, a connection here from `network`: it
/// stands in on the node holding the variant's war slot at once, to be paired from the next
/// game on.
pub(super) fn entered_here(
    shared: &Arc<Shared>,
    session: &Arc<Session>,
    out: &Outbound,
    network: Network,
    variant: Variant,
) {
    if shared.wing.is_none() {
        return;
    }
    let (shared, session, out) = (shared.clone(), session.clone(), out.clone());
    tokio::spawn(async move {
        if let Some(holder) = holder(&shared, variant).await {
            make_known(&shared, &session, &out, Some(network), &holder, false).await;
        }
    });
}
