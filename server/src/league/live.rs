//! The league as a server runs it: per variant, the table the store keeps (each game's end
//! updates it, so a restart, or another node, reads the table rather than the games), the bots
//! entered, the pairing of the next war game (a bot that is not here when its pairing comes up,
//! connected to this node or, in a cluster, standing in on it from another node, is passed
//! over: the round goes on without that game), and the connections that follow the
//! table, each told once per league game that ends.
//!
//! Every node keeps its own copy: the node playing a variant's war games catches up when one
//! ends; the others, while someone follows, every few seconds. A catch-up reads the lines only
//! when a game was counted since the last.

use std::sync::Mutex;
use std::time::Duration;

use noughts_protocol::{
    GameId, LeaguePairing, LeagueStanding, LeagueTable, Level, PlayerId, ServerMessage, Variant,
};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::entrant::Entrant;
use super::table::{Row, round};
use crate::net::outbound::{ConnId, Outbound, frame};
use crate::rules::rating::points;
use crate::rules::sitter::Sitter;
use crate::store::{KeptTable, LeagueBot, Store, StoreError};

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
    /// The AI levels that play, in the league's order; the bots entered follow them.
    levels: Vec<Entrant>,
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
    /// Whether the store keeps the table with this league's rating period (see
    /// [`Store::settle_league`]); asked once.
    settled: bool,
    /// Every entrant with a line in the table: the levels, then each bot as it first entered,
    /// those that left included, then any other the table has (a level no longer chosen).
    entrants: Vec<Entrant>,
    /// Their lines, in the same order.
    rows: Vec<Row>,
    /// The table's lines as last read, by entrant.
    lines: Vec<(Entrant, Row)>,
    /// The bots that entered, as last read: their names, and which are in the league now.
    bots: Vec<LeagueBot>,
    /// The last counted game's pairing: the round robin goes on from the one after it.
    last_pair: Option<[Entrant; 2]>,
    /// League games counted on the variant, entrants no longer in the league's included: the
    /// round robin's place.
    counted: u32,
    /// The `n` of the last game the table read had counted.
    last: u64,
    /// The `n` of the last game counted in a table the followers were told: whatever read the
    /// table since (a pairing, a request, the bots' looks), they are told a game they were not.
    told: u64,
    /// The war game being played, as last read, with X's and O's seats.
    playing: Option<(GameId, [Sitter; 2])>,
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
                levels: unique.clone(),
                pinned,
                state: tokio::sync::Mutex::new(State {
                    settled: false,
                    entrants: unique.clone(),
                    rows: vec![Row::NEW; unique.len()],
                    lines: Vec::new(),
                    bots: Vec::new(),
                    last_pair: None,
                    counted: 0,
                    last: 0,
                    told: 0,
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

    /// X's and O's seats in `variant`'s next war game: the round robin's next pairing after
    /// the games stored (or the pinned one), passing over a pairing with a bot that `here` does
    /// not find (it gives the bot's seat when the bot is connected to this node, or stands in
    /// on it from another node of a cluster).
    pub(crate) async fn next<S>(
        &self,
        store: &Store,
        variant: Variant,
        here: impl Fn(PlayerId) -> Option<S>,
    ) -> [Sitter<S>; 2] {
        let perfect = || [Sitter::Ai(Level::Perfect), Sitter::Ai(Level::Perfect)];
        let Some(league) = self.find(variant) else {
            return perfect();
        };
        let mut state = league.state.lock().await;
        if let Err(err) = league.catch_up(&mut state, store).await {
            warn!(cause = %err, %variant, "cannot read the league; pairing from what was read");
        }
        let seat = |entrant: Entrant| match entrant {
            Entrant::Level(level) => Some(Sitter::Ai(level)),
            Entrant::Bot(player) => here(player).map(Sitter::Human),
        };
        let games = league.upcoming(&state, usize::MAX);
        for [x, o] in games {
            if let (Some(x), Some(o)) = (seat(x), seat(o)) {
                return [x, o];
            }
        }
        perfect()
    }

    /// The bots in `variant`'s league now, caught up with the store; none while a pairing is
    /// pinned (it pairs no bot) or if no league runs on it.
    pub(crate) async fn entered(
        &self,
        store: &Store,
        variant: Variant,
    ) -> Result<Vec<PlayerId>, StoreError> {
        let Some(league) = self.find(variant).filter(|league| league.pinned.is_none()) else {
            return Ok(Vec::new());
        };
        let mut state = league.state.lock().await;
        league.catch_up(&mut state, store).await?;
        let bots = state.bots.iter().filter(|bot| bot.entered);
        Ok(bots.map(|bot| bot.player).collect())
    }

    /// Enters or takes out (`entered`) the bot `player`, named `name`, in `variant`'s league;
    /// false if no league runs on it.
    pub(crate) async fn enter(
        &self,
        store: &Store,
        variant: Variant,
        player: PlayerId,
        name: String,
        entered: bool,
    ) -> Result<bool, StoreError> {
        let Some(league) = self.find(variant) else {
            return Ok(false);
        };
        if entered {
            store.enter_league(variant, player, name).await?;
        } else {
            store.leave_league(variant, player).await?;
        }
        let mut state = league.state.lock().await;
        league.catch_up(&mut state, store).await?;
        state.told = state.last;
        let table = league.shown(&state);
        drop(state);
        league.tell(table);
        Ok(true)
    }

    /// A war game of `variant` ended: catches up and, if a league game was counted since the
    /// followers were last told, tells them (one frame, serialised once, whatever their
    /// number).
    pub(crate) async fn ended(&self, store: &Store, variant: Variant) {
        let Some(league) = self.find(variant) else {
            return;
        };
        let mut state = league.state.lock().await;
        if let Err(err) = league.catch_up(&mut state, store).await {
            warn!(cause = %err, %variant, "cannot read the league");
            return;
        }
        if state.last == state.told {
            return;
        }
        state.told = state.last;
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
    /// Reads the table if a game was counted since the last read, the bots entered and the war
    /// game being played. The first read has the store keep the table with this league's
    /// rating period, a round of the levels' own round robin (whoever else entered), so that
    /// every node closes it after the same games.
    async fn catch_up(&self, state: &mut State, store: &Store) -> Result<(), StoreError> {
        if !state.settled {
            let period = u32::try_from(round(self.levels.len()).len()).unwrap_or(u32::MAX);
            if store.settle_league(self.variant, period).await? {
                info!(variant = %self.variant, period, "the league's table was built from its games");
            }
            state.settled = true;
        }
        let news = store.league_news(self.variant, state.last).await?;
        state.playing = news.playing;
        state.bots = news.bots;
        if let Some(KeptTable { state: kept, lines }) = news.table {
            state.last = kept.last_n;
            state.counted = kept.counted;
            state.last_pair = kept
                .last_pair
                .and_then(|(x, o)| Some([Entrant::from_key(&x)?, Entrant::from_key(&o)?]));
            state.lines = lines
                .into_iter()
                .filter_map(|line| Some((Entrant::from_key(&line.entrant)?, line.row)))
                .collect();
        }
        self.place(state);
        Ok(())
    }

    /// Lays the table out: the levels, the bots that entered, then anyone else with a line.
    fn place(&self, state: &mut State) {
        let mut entrants = self.levels.clone();
        let bots = state.bots.iter().map(|bot| Entrant::Bot(bot.player));
        let others = state.lines.iter().map(|(entrant, _)| *entrant);
        for entrant in bots.chain(others) {
            if !entrants.contains(&entrant) {
                entrants.push(entrant);
            }
        }
        state.rows = entrants
            .iter()
            .map(|entrant| {
                let line = state.lines.iter().find(|(e, _)| e == entrant);
                line.map_or(Row::NEW, |(_, row)| *row)
            })
            .collect();
        state.entrants = entrants;
    }

    /// Who is in the league now: the levels, then the bots entered.
    fn active(&self, state: &State) -> Vec<Entrant> {
        let bots = state.bots.iter().filter(|bot| bot.entered);
        let mut active = self.levels.clone();
        active.extend(bots.map(|bot| Entrant::Bot(bot.player)));
        active
    }

    /// The `n` pairings after the last counted game's, in the round robin of the entrants in
    /// the league now (from the `counted`th place if the last pairing is not in it: someone
    /// entered or left), or the pinned one.
    fn upcoming(&self, state: &State, n: usize) -> Vec<[Entrant; 2]> {
        if let Some([x, o]) = self.pinned {
            // The same pairing every time, as many as are shown at most (`n` may be "all of
            // them", usize::MAX).
            return vec![[Entrant::Level(x), Entrant::Level(o)]; n.min(NEXT_SHOWN + 1)];
        }
        let active = self.active(state);
        let games = round(active.len());
        if games.is_empty() {
            return Vec::new();
        }
        let after_last = state.last_pair.and_then(|[x, o]| {
            games
                .iter()
                .position(|g| active[g.x] == x && active[g.o] == o)
                .map(|i| i + 1)
        });
        let from = after_last.unwrap_or(state.counted as usize);
        (0..n.min(games.len()))
            .map(|i| {
                let game = games[(from + i) % games.len()];
                [active[game.x], active[game.o]]
            })
            .collect()
    }

    /// The table as the protocol shows it.
    fn shown(&self, state: &State) -> LeagueTable {
        let name = |entrant: Entrant| match entrant {
            Entrant::Bot(player) => {
                let bot = state.bots.iter().find(|bot| bot.player == player);
                entrant.shown(bot.map(|bot| bot.name.as_str()))
            }
            Entrant::Level(_) => entrant.shown(None),
        };
        let mut standings: Vec<LeagueStanding> = state
            .entrants
            .iter()
            .zip(&state.rows)
            .map(|(&entrant, row)| LeagueStanding {
                entrant: entrant.wire(),
                name: name(entrant),
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
            .map(|(game, [x, o])| pairing([Entrant::of_seat(x), Entrant::of_seat(o)], Some(game)));
        let mut next = self.upcoming(state, NEXT_SHOWN + 1);
        // The game being played is the first of them, unless it was passed over for it.
        if let Some(playing) = &playing
            && next.first().map(|[x, o]| [x.wire(), o.wire()]) == Some([playing.x, playing.o])
        {
            next.remove(0);
        }
        next.truncate(NEXT_SHOWN);
        LeagueTable {
            variant: self.variant,
            games: state.counted,
            round_games: u32::try_from(round(self.active(state).len()).len()).unwrap_or(u32::MAX),
            standings,
            playing,
            next: next.into_iter().map(|e| pairing(e, None)).collect(),
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

#[cfg(test)]
mod tests {
    use noughts_protocol::{EndReason, GameId, GameKind, Level, Mark, Variant};

    use super::Leagues;
    use crate::net::outbound::channel;
    use crate::rules::sitter::Sitter;
    use crate::store::{Ending, GameStart, Store, StoreConfig};

    #[tokio::test]
    async fn a_pinned_pairing_is_the_next_war_game() {
        let (store, _) = Store::open(&StoreConfig::Memory).await.unwrap();
        let levels = [Level::Easy, Level::Hard, Level::Perfect];
        let pinned = Some([Level::Hard, Level::Easy]);
        let leagues = Leagues::new(&[Variant::Classic], &levels, pinned);
        for _ in 0..2 {
            let seats = leagues.next(&store, Variant::Classic, |_| None::<()>).await;
            assert_eq!(seats, [Sitter::Ai(Level::Hard), Sitter::Ai(Level::Easy)]);
        }
        let table = leagues.table(&store, Variant::Classic).await.unwrap();
        assert!(!table.expect("a league on classic").next.is_empty());
    }

    #[tokio::test]
    async fn followers_are_told_a_game_that_another_read_caught_up_with_first() {
        let (store, _) = Store::open(&StoreConfig::Memory).await.unwrap();
        let leagues = Leagues::new(&[Variant::Classic], &[Level::Easy, Level::Hard], None);
        let (out, mut inbox) = channel(8, Default::default(), None);
        assert!(leagues.follow(Variant::Classic, out));
        let seats = [Sitter::Ai(Level::Easy), Sitter::Ai(Level::Hard)];
        let start = GameStart {
            game: GameId(1),
            variant: Variant::Classic,
            kind: GameKind::War,
            seats,
            clock: None,
            rated: false,
            listed: true,
            rematch_of: None,
            owner: None,
            started_ms: 0,
        };
        store.start_game(start).await.unwrap();
        let end = Ending {
            seq: 9,
            winner: Some(Mark::O),
            reason: EndReason::Line,
            cells: vec![2, 4, 6],
            ended_ms: 1,
        };
        store.end_game(GameId(1), end).await.unwrap();
        // Something else reads the table first (a request, the next pairing, the bots' look);
        // the look for followers then still finds a game they were not told.
        leagues.table(&store, Variant::Classic).await.unwrap();
        let told = |inbox: &mut crate::net::outbound::Inbox| {
            let mut frames = Vec::new();
            inbox.take(&mut frames, 8);
            frames.len()
        };
        leagues.ended(&store, Variant::Classic).await;
        assert_eq!(told(&mut inbox), 1, "told the game counted");
        leagues.ended(&store, Variant::Classic).await;
        assert_eq!(told(&mut inbox), 0, "told once");
    }
}
