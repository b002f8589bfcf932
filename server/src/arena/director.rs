//! One arena's director: a task that owns the arena's standings, pairs its free players as they
//! come free, counts each game that ends (once: the store marks it counted in the same
//! transaction as the new scores), pushes the standings to its followers at most twice a second,
//! and, when time is up and the last game has counted, keeps the podium for good.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{
    ARENA_PAGE, ARENA_TOP, ArenaInfo, ArenaStatus, ArenaTotals, ArenaView, ErrorCode, GameId,
    GameKind, LOBBY_ARENAS, PlayerId, ServerMessage, Variant,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::{error, info, warn};

use super::joined;
use super::standings::{self, Free, own_members, push_spacing};
use super::table::Table;
use crate::error::Refusal;
use crate::game::{self, Counted, Setup};
use crate::lobby::invite_code;
use crate::net::outbound::{ConnId, FAN_OUT_SLICE, Outbound, frame, with_members};
use crate::registry::arenas::{ARENA_QUEUE, ArenaAsk, ArenaRequest};
use crate::rules::rating::points;
use crate::rules::sitter::Sitter;
use crate::shared::Shared;
use crate::store::{ArenaGame, ArenaHold, Entrant, Place, StoreError, StoredArena, now_ms};

/// How often the director pairs, looks at the clock and pushes changed standings.
const TICK: Duration = Duration::from_millis(500);
/// Every how many ticks the orphan games are looked after.
const ORPHAN_TICKS: u64 = 4;
/// How long a finished arena still answers `arena` (its podium) before its director ends.
const LINGER: Duration = Duration::from_secs(600);

/// One arena's state, owned by its director task.
pub(super) struct Director {
    pub(super) shared: Arc<Shared>,
    pub(super) arena: StoredArena,
    /// Every player's line, kept in the standings' order, and the games being played.
    pub(super) table: Table,
    /// Games counted so far.
    pub(super) counted: u32,
    /// The connections that follow the standings, with their player.
    pub(super) followers: HashMap<ConnId, (Outbound, PlayerId)>,
    /// Whether the standings changed since they were last pushed.
    pub(super) dirty: bool,
    /// Where the games' ends are told, with the lines their counts scored if they counted here.
    pub(super) ends: mpsc::UnboundedSender<(GameId, Counted)>,
    /// Games being played that no end will be told of (found at start, restored with the
    /// server's other games): the store is asked now and then whether they have ended.
    pub(super) orphans: Vec<GameId>,
    /// Ticks so far, to ask after the orphans every few.
    pub(super) ticks: u64,
    /// In a cluster, this node's hold of the arena's slot: it directs the arena while it holds it.
    pub(super) lease: Option<Lease>,
    /// In a cluster, the fencing epoch the arena was taken under, carried by each of the
    /// director's writes: the store refuses them once another director has taken the arena.
    pub(super) epoch: Option<u64>,
    /// Whether the store refused a write as another director's: this one stops at once.
    pub(super) fenced: bool,
    /// When the standings were last pushed, to keep within the budget of sends.
    pub(super) pushed_at: Option<Instant>,
}

/// A director's hold of its arena in a cluster; none on a lone server.
#[cfg(feature = "cluster")]
pub(super) use crate::cluster::slot::SlotLease as Lease;
#[cfg(not(feature = "cluster"))]
pub(super) type Lease = std::convert::Infallible;

/// Starts the director of an arena with its players and games as stored (in a cluster, holding
/// the arena's `lease`, taken under a fencing epoch); returns what lists show of it.
pub(super) fn open(
    shared: &Arc<Shared>,
    arena: StoredArena,
    lines: Vec<Entrant>,
    games: Vec<ArenaGame>,
    lease: Option<(Lease, u64)>,
) -> ArenaInfo {
    let (queue, asks) = mpsc::channel(ARENA_QUEUE);
    let (ends, ended) = mpsc::unbounded_channel();
    let playing = games.iter().filter(|g| !g.counted).copied();
    let table = Table::new(lines, |p| session_rating(shared, arena.variant, p), playing);
    let director = Director {
        shared: shared.clone(),
        counted: u32::try_from(games.iter().filter(|g| g.counted).count()).unwrap_or(u32::MAX),
        orphans: table.playing().map(|g| g.game).collect(),
        table,
        arena,
        followers: HashMap::new(),
        dirty: true,
        ends,
        ticks: 0,
        epoch: lease.as_ref().map(|(_, epoch)| *epoch),
        lease: lease.map(|(lease, _)| lease),
        fenced: false,
        pushed_at: None,
    };
    let creator = director.arena.creator.as_ref().map(|(player, _)| *player);
    let info = director.info();
    shared.registry.arenas.add(info.clone(), creator, queue);
    let span = tracing::info_span!(parent: None, "arena", id = director.arena.id.0);
    shared
        .lifecycle
        .tasks
        .spawn(tracing::Instrument::instrument(
            director.run(asks, ended),
            span,
        ));
    info
}

impl Director {
    /// Runs the arena until it has finished and lingered, or the server stops.
    pub(super) async fn run(
        mut self,
        mut asks: mpsc::Receiver<ArenaAsk>,
        mut ended: mpsc::UnboundedReceiver<(GameId, Counted)>,
    ) {
        let stop = self.shared.lifecycle.stop_games.clone();
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut finished_at = None;
        let stepped_down = loop {
            // Ends first: an answer to a player reflects every game the player has seen end.
            tokio::select! {
                biased;
                () = stop.cancelled() => break false,
                Some((game, counted)) = ended.recv() => self.ended(game, counted).await,
                Some(ask) = asks.recv() => self.ask(ask).await,
                _ = tick.tick() => {
                    if !self.keep_lease().await {
                        break true;
                    }
                    if self.tick().await && finished_at.is_none() {
                        finished_at = Some(tokio::time::Instant::now());
                    }
                    if finished_at.is_some_and(|at| at.elapsed() >= LINGER) {
                        break false;
                    }
                }
            }
            if self.fenced {
                break true;
            }
        };
        if stepped_down {
            // Another node directs it now (or will): this node goes on listing it.
            warn!(
                arena = self.arena.id.0,
                "lost the arena's slot; stepping down"
            );
            self.shared.registry.arenas.step_down(self.arena.id);
            return;
        }
        self.shared.registry.arenas.remove(self.arena.id);
        self.tell_lobby();
        self.give_back().await;
    }

    /// In a cluster, renews the arena's slot: false when this node must stop directing it.
    #[cfg(feature = "cluster")]
    async fn keep_lease(&mut self) -> bool {
        match &mut self.lease {
            Some(lease) => lease.keep().await,
            None => true,
        }
    }

    #[cfg(not(feature = "cluster"))]
    async fn keep_lease(&mut self) -> bool {
        true
    }

    /// In a cluster, gives the arena's slot back, so that another node carries it on at once if
    /// it has not finished.
    #[cfg(feature = "cluster")]
    async fn give_back(&self) {
        if let Some(lease) = &self.lease {
            lease.give_back().await;
        }
    }

    #[cfg(not(feature = "cluster"))]
    async fn give_back(&self) {}

    /// In a cluster, notes what lists show of the arena for the other nodes.
    #[cfg(feature = "cluster")]
    fn note(&self, info: &ArenaInfo) {
        if let Some(lease) = &self.lease {
            lease.note(serde_json::to_string(info).expect("an arena's info serialises"));
        }
    }

    #[cfg(not(feature = "cluster"))]
    fn note(&self, _: &ArenaInfo) {}

    /// Gives the lobby the arenas it lists, as they stand now.
    fn tell_lobby(&self) {
        let listed = (self.shared.registry.arenas).for_lobby(now_ms(), LOBBY_ARENAS);
        self.shared.lobby.set_arenas(listed);
    }

    /// The arena as this director writes it, under its fencing epoch.
    fn hold(&self) -> ArenaHold {
        ArenaHold {
            arena: self.arena.id,
            epoch: self.epoch,
        }
    }

    /// Notes a store refusal that shows another director has taken the arena: this one stops.
    fn note_fenced(&mut self, err: &StoreError) {
        if let StoreError::FencedArena(_) = err {
            warn!(
                arena = self.arena.id.0,
                "another node directs the arena now"
            );
            self.fenced = true;
        }
    }

    pub(super) fn info(&self) -> ArenaInfo {
        let players = u32::try_from(self.table.len()).unwrap_or(u32::MAX);
        standings::info_of(&self.arena, players, now_ms())
    }

    /// Keeps a player's line as stored now, with their rating as their session has it now (their
    /// last seen, when they have none here).
    fn keep_line(&mut self, line: Entrant) {
        let player = line.player;
        self.table.put(line);
        if let Some(rating) = session_rating(&self.shared, self.arena.variant, player) {
            self.table.rate(player, rating);
        }
    }

    /// Keeps what a game's count scored of a player's line (its points, games and last
    /// opponent) as the end's transaction stored it; the rest (joined, withdrawn) is the
    /// director's own to write, and may have changed since.
    fn keep_scored(&mut self, line: Entrant) {
        let line = match self.table.entrant(line.player) {
            Some(kept) => Entrant {
                name: kept.name.clone(),
                withdrawn: kept.withdrawn,
                joined_ms: kept.joined_ms,
                ..line
            },
            None => line,
        };
        self.keep_line(line);
    }

    /// Notes that the standings changed: pushed at the next turn of the clock.
    fn changed(&mut self) {
        self.dirty = true;
    }

    /// The standings as everyone sees them: without a receiver's own line and game.
    fn common(&self) -> ArenaView {
        let table = &self.table;
        let finished = self.arena.finished_ms.is_some();
        ArenaView {
            info: self.info(),
            top: table.page(0, ARENA_TOP),
            me: None,
            totals: ArenaTotals {
                players: u32::try_from(table.len()).unwrap_or(u32::MAX),
                games: self.counted,
                playing: u32::try_from(table.playing_count()).unwrap_or(u32::MAX),
            },
            best_game: table.best_game(),
            my_game: None,
            podium: if finished { table.podium() } else { Vec::new() },
        }
    }

    /// The standings as `player` sees them now.
    fn view(&self, player: PlayerId) -> ArenaView {
        let mut view = self.common();
        view.me = self.table.line(player);
        view.my_game = self.table.game_of(player);
        view
    }

    /// Pushes the standings to every follower: serialised once, each copy gaining only its own
    /// line and game, a slice of followers at a time so as not to hold up the moves beside it;
    /// those of another node in one mail to that node, which makes their copies.
    async fn push(&mut self) {
        self.dirty = false;
        self.pushed_at = Some(Instant::now());
        let info = self.info();
        self.note(&info);
        self.shared.registry.arenas.update(info);
        self.tell_lobby();
        self.followers.retain(|_, (out, _)| !out.is_closed());
        if self.followers.is_empty() {
            return;
        }
        let shared = frame(None, ServerMessage::Arena(Box::new(self.common())));
        let mut elsewhere: HashMap<&str, Vec<(u64, String)>> = HashMap::new();
        for (sent, (out, player)) in self.followers.values().enumerate() {
            let members = own_members(
                self.table.line(*player).as_ref(),
                self.table.game_of(*player).as_ref(),
            );
            match out.remote() {
                Some(to) => elsewhere
                    .entry(&to.node)
                    .or_default()
                    .push((to.conn, members)),
                None => {
                    out.send(with_members(&shared, &members));
                }
            }
            if sent % FAN_OUT_SLICE == FAN_OUT_SLICE - 1 {
                tokio::task::yield_now().await;
            }
        }
        #[cfg(feature = "cluster")]
        if let Some(wing) = &self.shared.wing {
            wing.cluster.mail_standings(&shared, elsewhere);
        }
    }

    /// One turn of the clock: pairs the free players while the arena runs, counts games that
    /// ended unseen, pushes changed standings, and finishes the arena once its time is up and
    /// every game has counted. True once it has finished.
    async fn tick(&mut self) -> bool {
        let now = now_ms();
        self.ticks += 1;
        if self.ticks.is_multiple_of(ORPHAN_TICKS) {
            self.look_after_orphans().await;
        }
        match standings::status_of(&self.arena, now) {
            ArenaStatus::Running => self.pair().await,
            ArenaStatus::Ending if self.table.playing_count() == 0 => self.finish().await,
            _ => {}
        }
        // Within the node's budget of sends, as the lobby's frames (`--lobby-sends`).
        let spacing = push_spacing(
            self.followers.len(),
            self.shared.config.lobby_sends_per_sec,
            TICK,
        );
        if self.dirty && self.pushed_at.is_none_or(|at| at.elapsed() >= spacing) {
            self.push().await;
        }
        self.arena.finished_ms.is_some()
    }

    /// Counts the orphan games that have ended (their end stored, wherever they were played).
    async fn look_after_orphans(&mut self) {
        let mut ended = Vec::new();
        for &game in &self.orphans {
            let over = match self.shared.store.record(game, PlayerId(0)).await {
                Ok(Some((stored, _))) => stored.result.is_some(),
                Ok(None) => true,
                Err(_) => false,
            };
            if over {
                ended.push(game);
            }
        }
        for game in ended {
            self.ended(game, Vec::new()).await;
        }
    }

    /// Starts a game for each pair of free players, keeping the ratings their sessions show now.
    async fn pair(&mut self) {
        let variant = self.arena.variant;
        let mut free = Vec::new();
        // Ratings seen changed since (as after a restart, when no session was here to ask).
        let mut rerated = Vec::new();
        for e in self.table.lines() {
            if e.withdrawn || self.table.game_of(e.player).is_some() {
                continue;
            }
            let Some(session) = self.shared.registry.session(e.player) else {
                continue;
            };
            if !session.is_connected() {
                continue;
            }
            let rating = points(session.ratings().get(variant).rating);
            if rating != self.table.rating(e.player) {
                rerated.push((e.player, rating));
            }
            free.push(Free {
                player: e.player,
                score: e.score,
                rating,
                last_opponent: e.last_opponent,
            });
        }
        if !rerated.is_empty() {
            for (player, rating) in rerated {
                self.table.rate(player, rating);
            }
            self.changed();
        }
        if free.len() < 2 {
            return;
        }
        let pairs = {
            let moderation = self.shared.accounts.moderation.state();
            standings::pair(free, |a, b| moderation.blocked(a, b))
        };
        for pair in pairs {
            self.start(pair).await;
        }
    }

    /// Starts the game of a pair, sides drawn at random, and records it.
    async fn start(&mut self, mut pair: [PlayerId; 2]) {
        if noughts_engine::Rng::new().bool() {
            pair.swap(0, 1);
        }
        let [Some(x), Some(o)] = pair.map(|p| self.shared.registry.session(p)) else {
            return;
        };
        let (on_end, end) = oneshot::channel();
        let setup = Setup {
            variant: self.arena.variant,
            kind: GameKind::Human,
            seats: [Sitter::Human(x), Sitter::Human(o)],
            clock: Some(self.arena.clock),
            owner: None,
            rated: true,
            listed: true,
            rematch_of: None,
            requester: None,
            watcher: None,
            on_end: Some(on_end),
        };
        // Its row in the arena is stored with the game's start, before anyone hears of it.
        let id = match game::start_in_arena(&self.shared, setup, self.hold()) {
            Ok(id) => id,
            Err(refusal) => {
                warn!(arena = self.arena.id.0, cause = %refusal, "cannot start an arena game");
                return;
            }
        };
        let ends = self.ends.clone();
        tokio::spawn(async move {
            // Closed unsaid when the game stopped here unended: the store tells how it stands.
            let counted = end.await.unwrap_or_default();
            let _ = ends.send((id, counted));
        });
        let game = ArenaGame {
            game: id,
            x: pair[0],
            o: pair[1],
            counted: false,
        };
        self.table.start(game);
        self.table.met(pair);
        self.changed();
    }

    /// Takes in a game that ended: the store counted it as it stored the end (wherever it was
    /// played). The lines its count scored come with the end of a game played here; otherwise
    /// they are read back. A game that ended with no end stored (its node died before its first
    /// write) counts for nothing. A game still being played (on another node, which took it over)
    /// is looked after until it ends.
    async fn ended(&mut self, id: GameId, scored: Counted) {
        let Some(game) = self.table.stop(id) else {
            return;
        };
        self.orphans.retain(|g| *g != id);
        if !scored.is_empty() {
            for line in scored {
                self.keep_scored(line);
            }
            self.counted += 1;
            self.changed();
            return;
        }
        let counted = match self.shared.store.arena_game(self.arena.id, id).await {
            Ok(Some((row, lines))) if row.counted => {
                // Their sessions rated the game before it was told ended here.
                for line in lines {
                    self.keep_line(line);
                }
                true
            }
            Ok(Some(_)) => match self.shared.store.record(id, PlayerId(0)).await {
                Ok(Some((stored, _))) if stored.result.is_none() => {
                    // Still being played elsewhere: its end is stored (and counted) there.
                    self.table.start(game);
                    self.orphans.push(id);
                    return;
                }
                Ok(_) => match self.shared.store.void_arena_game(self.hold(), id).await {
                    Ok(voided) => voided,
                    Err(err) => {
                        self.note_fenced(&err);
                        false
                    }
                },
                Err(err) => {
                    error!(game = id.0, cause = %err, "cannot read an arena game's end");
                    self.table.start(game);
                    self.orphans.push(id);
                    return;
                }
            },
            Ok(None) => {
                // Its start was never stored: maybe refused, as this director's no longer.
                if self.epoch.is_some()
                    && let Err(err) = self.shared.store.check_arena(self.hold()).await
                {
                    self.note_fenced(&err);
                }
                false
            }
            Err(err) => {
                error!(game = id.0, cause = %err, "cannot read an arena game's count");
                self.table.start(game);
                self.orphans.push(id);
                return;
            }
        };
        self.counted += u32::from(counted);
        self.changed();
    }

    /// Keeps the podium for good.
    async fn finish(&mut self) {
        let places: Vec<Place> = (self.table.podium().into_iter())
            .zip(1..)
            .map(|(line, place)| Place {
                place,
                player: line.player,
                score: line.score,
            })
            .collect();
        match self.shared.store.finish_arena(self.hold(), places).await {
            Ok(_) => {
                self.arena.finished_ms = Some(now_ms());
                info!(arena = self.arena.id.0, "arena finished");
            }
            Err(err) => {
                self.note_fenced(&err);
                error!(arena = self.arena.id.0, cause = %err, "cannot finish an arena");
            }
        }
        self.changed();
    }

    /// Answers one ask.
    async fn ask(&mut self, ask: ArenaAsk) {
        let answer = self.answer(&ask).await;
        let _ = ask.reply.send(answer);
    }

    async fn answer(&mut self, ask: &ArenaAsk) -> Result<ServerMessage, Refusal> {
        let player = ask.from.player;
        let joined = self.table.joined(player);
        match &ask.request {
            ArenaRequest::Join { code } => {
                self.check_code(code.as_deref())?;
                self.join(ask, player).await
            }
            ArenaRequest::View { code } => {
                if !joined {
                    self.check_code(code.as_deref())?;
                }
                self.follow(ask);
                Ok(ServerMessage::Arena(Box::new(self.view(player))))
            }
            ArenaRequest::Withdraw => self.withdraw(ask).await,
            ArenaRequest::Unwatch => {
                self.followers.remove(&ask.from.out.conn);
                Ok(ServerMessage::Ok)
            }
            ArenaRequest::Page { offset } => {
                if !joined {
                    self.check_code(None)?;
                }
                Ok(ServerMessage::ArenaPage {
                    arena: self.arena.id,
                    offset: *offset,
                    lines: self.table.page(*offset as usize, ARENA_PAGE),
                })
            }
        }
    }

    /// Refuses a private arena's wrong or missing code as if the arena did not exist.
    fn check_code(&self, code: Option<&str>) -> Result<(), Refusal> {
        match &self.arena.code {
            Some(kept) if code.and_then(invite_code::parse).as_ref() != Some(kept) => {
                Err(no_such_arena())
            }
            _ => Ok(()),
        }
    }

    fn follow(&mut self, ask: &ArenaAsk) {
        let out = &ask.from.out;
        self.followers
            .insert(out.conn, (out.clone(), ask.from.player));
    }

    async fn join(&mut self, ask: &ArenaAsk, player: PlayerId) -> Result<ServerMessage, Refusal> {
        if !ask.account {
            return Err(Refusal::new(
                ErrorCode::NotAnAccount,
                "arena games are rated: register an account to join",
            ));
        }
        standings::may_join(ask.bot, self.arena.bots_only)?;
        if matches!(
            standings::status_of(&self.arena, now_ms()),
            ArenaStatus::Ending | ArenaStatus::Finished
        ) {
            return Err(Refusal::new(
                ErrorCode::ArenaOver,
                "this arena's time is up",
            ));
        }
        let name = self
            .shared
            .registry
            .session(player)
            .map(|s| s.name())
            .unwrap_or_default();
        match self
            .shared
            .store
            .enter_arena(self.hold(), player, name)
            .await
        {
            Ok(line) => self.keep_line(line),
            Err(err) => return Err(self.unstored(&err)),
        }
        self.changed();
        joined::tell(&self.shared, &ask.from, self.arena.id, true);
        self.follow(ask);
        Ok(ServerMessage::Arena(Box::new(self.view(player))))
    }

    async fn withdraw(&mut self, ask: &ArenaAsk) -> Result<ServerMessage, Refusal> {
        let player = ask.from.player;
        match self.shared.store.leave_arena(self.hold(), player).await {
            Ok(Some(line)) => self.keep_line(line),
            Ok(None) => {
                return Err(Refusal::new(
                    ErrorCode::BadRequest,
                    "you have not joined this arena",
                ));
            }
            Err(err) => return Err(self.unstored(&err)),
        }
        self.changed();
        joined::tell(&self.shared, &ask.from, self.arena.id, false);
        Ok(ServerMessage::Ok)
    }

    /// What a player is told when their line could not be stored.
    fn unstored(&mut self, err: &StoreError) -> Refusal {
        self.note_fenced(err);
        error!(arena = self.arena.id.0, cause = %err, "cannot store an arena player");
        Refusal::new(
            ErrorCode::Internal,
            "the arena could not be joined just now",
        )
    }
}

/// `player`'s rating in `variant` as their session on this node has it, if they have one here.
fn session_rating(shared: &Shared, variant: Variant, player: PlayerId) -> Option<u32> {
    let session = shared.registry.session(player)?;
    Some(points(session.ratings().get(variant).rating))
}

pub(crate) fn no_such_arena() -> Refusal {
    Refusal::new(ErrorCode::NoSuchArena, "no arena has that id")
}
