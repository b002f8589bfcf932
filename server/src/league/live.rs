//! The league as a server runs it: per variant, the table read back from the store in the order
//! its games were counted (so a restart, or another node, carries on from what is stored), the
//! pairing of the next war game, and the connections that follow the table, each told once per
//! league game that ends.
//!
//! Every node keeps its own copy: the node playing a variant's war games catches up when one
//! ends; the others, while someone follows, every few seconds. A catch-up reads only the games
//! counted since the last.

use std::sync::Mutex;
use std::time::Duration;

use noughts_protocol::{
    GameId, LeaguePairing, LeagueStanding, LeagueTable, Level, Mark, ServerMessage, Variant,
};
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::entrant::Entrant;
use super::table::{Finish, Pairing, Table, round};
use crate::net::outbound::{ConnId, Outbound, frame};
use crate::rules::rating::points;
use crate::store::{LEAGUE_PAGE, Store, StoreError};

/// How many pairings to come a table shows.
const NEXT_SHOWN: usize = 4;

/// How often a node that does not play a followed league's games looks for new ones.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Every variant's league on this server.
#[derive(Debug)]
pub(crate) struct Leagues {
    leagues: Vec<League>,
}

/// One variant's league.
#[derive(Debug)]
struct League {
    variant: Variant,
    /// Who plays, in the league's order (the round robin's pairings name them by place).
    entrants: Vec<Entrant>,
    /// The one pairing every war game plays instead of the round robin's, if the operator
    /// pinned one; its games still count.
    pinned: Option<[Level; 2]>,
    /// The table as far as it was read; one reader at a time.
    state: tokio::sync::Mutex<State>,
    /// The connections that follow the table.
    followers: Mutex<Vec<Outbound>>,
}

/// A league's table as far as the store was read.
#[derive(Debug)]
struct State {
    table: Table,
    /// League games counted on the variant, entrants no longer in the league's included: the
    /// round robin's place.
    counted: u32,
    /// The `n` of the last game read.
    last: u64,
    /// The war game being played, as last read, with X's and O's levels.
    playing: Option<(GameId, [Level; 2])>,
}

impl Leagues {
    /// A league on each of `variants` between `entrants` (an entrant named twice counts once),
    /// or, `pinned`, every game that one pairing.
    pub(crate) fn new(
        variants: &[Variant],
        entrants: &[Level],
        pinned: Option<[Level; 2]>,
    ) -> Self {
        let mut unique: Vec<Entrant> = Vec::new();
        for &level in entrants {
            if !unique.contains(&Entrant::Level(level)) {
                unique.push(Entrant::Level(level));
            }
        }
        let leagues = variants
            .iter()
            .map(|&variant| League {
                variant,
                entrants: unique.clone(),
                pinned,
                state: tokio::sync::Mutex::new(State {
                    table: Table::new(unique.len()),
                    counted: 0,
                    last: 0,
                    playing: None,
                }),
                followers: Mutex::new(Vec::new()),
            })
            .collect();
        Leagues { leagues }
    }

    fn find(&self, variant: Variant) -> Option<&League> {
        self.leagues.iter().find(|league| league.variant == variant)
    }

    /// Whether a league runs on `variant`.
    pub(crate) fn runs(&self, variant: Variant) -> bool {
        self.find(variant).is_some()
    }

    /// `variant`'s table, caught up with the store; `None` if no league runs on it.
    pub(crate) async fn table(
        &self,
        store: &Store,
        variant: Variant,
    ) -> Result<Option<LeagueTable>, StoreError> {
        let Some(league) = self.find(variant) else {
            return Ok(None);
        };
        let mut state = league.state.lock().await;
        league.catch_up(&mut state, store).await?;
        Ok(Some(league.shown(&state)))
    }

    /// X's and O's levels in `variant`'s next war game: the round robin's next pairing after
    /// the games stored (or the pinned one).
    pub(crate) async fn next(&self, store: &Store, variant: Variant) -> [Level; 2] {
        let Some(league) = self.find(variant) else {
            return [Level::Perfect; 2];
        };
        let mut state = league.state.lock().await;
        if let Err(err) = league.catch_up(&mut state, store).await {
            warn!(cause = %err, %variant, "cannot read the league; pairing from what was read");
        }
        league
            .upcoming(state.counted, 1)
            .first()
            .copied()
            .map_or([Level::Perfect; 2], |[x, o]| [x.level(), o.level()])
    }

    /// A war game of `variant` ended: catches up and, if a league game was counted, tells the
    /// followers (one frame, serialised once, whatever their number).
    pub(crate) async fn ended(&self, store: &Store, variant: Variant) {
        let Some(league) = self.find(variant) else {
            return;
        };
        let mut state = league.state.lock().await;
        let before = state.last;
        if let Err(err) = league.catch_up(&mut state, store).await {
            warn!(cause = %err, %variant, "cannot read the league");
            return;
        }
        if state.last == before {
            return;
        }
        let table = league.shown(&state);
        drop(state);
        league.tell(table);
    }

    /// `out` follows `variant`'s league (and no other); false if none runs on it.
    pub(crate) fn follow(&self, variant: Variant, out: Outbound) -> bool {
        if !self.runs(variant) {
            return false;
        }
        self.unfollow(out.conn);
        if let Some(league) = self.find(variant) {
            lock(&league.followers).push(out);
        }
        true
    }

    /// The connection follows no league any more.
    pub(crate) fn unfollow(&self, conn: ConnId) {
        for league in &self.leagues {
            lock(&league.followers).retain(|out| out.conn != conn);
        }
    }

    /// Until `stop`: for each league someone here follows, looks for games counted elsewhere
    /// (another node's, in a cluster) every few seconds, and tells the followers.
    pub(crate) async fn keep_followers_told(&self, store: Store, stop: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(LOOK_EVERY) => {}
                () = stop.cancelled() => return,
            }
            for league in &self.leagues {
                if !lock(&league.followers).is_empty() {
                    self.ended(&store, league.variant).await;
                }
            }
        }
    }
}

impl League {
    /// Reads the games counted since the last read, and the war game being played.
    async fn catch_up(&self, state: &mut State, store: &Store) -> Result<(), StoreError> {
        let games = u32::try_from(round(self.entrants.len()).len()).unwrap_or(u32::MAX);
        loop {
            let news = store.league_news(self.variant, state.last).await?;
            state.playing = news.playing;
            let full = news.games.len() >= LEAGUE_PAGE as usize;
            for game in news.games {
                state.last = game.n;
                state.counted += 1;
                let place = |key: &str| {
                    let entrant = Entrant::from_key(key)?;
                    self.entrants.iter().position(|e| *e == entrant)
                };
                if let (Some(x), Some(o)) = (place(&game.x), place(&game.o)) {
                    let finish = match game.winner {
                        Some(Mark::X) => Finish::XWon,
                        Some(Mark::O) => Finish::OWon,
                        None => Finish::Drawn,
                    };
                    state.table.record(Pairing { x, o }, finish);
                }
                if games > 0 && state.counted.is_multiple_of(games) {
                    state.table.close_round();
                }
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// The `n` pairings from the `counted`th game of the league on: the pinned one, or the
    /// round robin's (none with fewer than two entrants).
    fn upcoming(&self, counted: u32, n: usize) -> Vec<[Entrant; 2]> {
        if let Some([x, o]) = self.pinned {
            return vec![[Entrant::Level(x), Entrant::Level(o)]; n];
        }
        let games = round(self.entrants.len());
        if games.is_empty() {
            return Vec::new();
        }
        (0..n)
            .map(|i| {
                let game = games[(counted as usize + i) % games.len()];
                [self.entrants[game.x], self.entrants[game.o]]
            })
            .collect()
    }

    /// The table as the protocol shows it.
    fn shown(&self, state: &State) -> LeagueTable {
        let mut standings: Vec<LeagueStanding> = self
            .entrants
            .iter()
            .zip(state.table.rows())
            .map(|(entrant, row)| LeagueStanding {
                entrant: entrant.wire(),
                name: entrant.shown(),
                games: row.played,
                wins: row.wins,
                draws: row.draws,
                losses: row.losses,
                points: row.points(),
                rating: points(row.rating),
                deviation: points(row.deviation),
            })
            .collect();
        standings.sort_by(|a, b| b.points.total_cmp(&a.points).then(b.rating.cmp(&a.rating)));
        let pairing = |[x, o]: [Entrant; 2], game: Option<GameId>| LeaguePairing {
            x: x.wire(),
            o: o.wire(),
            game,
        };
        let playing = state
            .playing
            .map(|(game, [x, o])| pairing([Entrant::Level(x), Entrant::Level(o)], Some(game)));
        let next = self
            .upcoming(state.counted + u32::from(playing.is_some()), NEXT_SHOWN)
            .into_iter()
            .map(|entrants| pairing(entrants, None))
            .collect();
        LeagueTable {
            variant: self.variant,
            games: state.counted,
            round_games: u32::try_from(round(self.entrants.len()).len()).unwrap_or(u32::MAX),
            standings,
            playing,
            next,
        }
    }

    /// Sends `table` to every follower, once serialised; a follower whose connection is gone
    /// is let go.
    fn tell(&self, table: LeagueTable) {
        let frame = frame(None, ServerMessage::LeagueTable(Box::new(table)));
        lock(&self.followers).retain(|out| out.send(frame.clone()));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
