//! The seam between the store and a database: [`Backend`], the facts one database reads and
//! writes, and everything the store makes of them the same way whichever database keeps them
//! (what is read at start, the end of a game and the rating change it causes, records, history
//! and profiles).
//!
//! A backend is driven by the store's one thread: it is never shared, and every write runs inside
//! the transaction the thread opened, each in a savepoint of its own.

use noughts_protocol::{GameId, GameKind, Mark, PlayerId, Variant, closed_name};
use tracing::error;

use super::accounts::AccountBackend;
use super::arenas::{ArenaBackend, Entrant};
use super::league::{LeagueBackend, LeagueGame};
use super::records::ModerationEntry;
use super::records::{
    EndedGame, Ending, GameStart, LiveGame, Rerated, Results, SEQ_RESERVE, Startup, StoreError,
    StoredGame, StoredMove, StoredPlayer, StoredProfile, StoredSeat, StoredStanding, TokenHash,
    TokenRules,
};
use super::rows::{GameRow, SeatRating, text};
use crate::rules::rating::{self, Glicko, Ratings, Score};
use crate::rules::sitter::Sitter;

/// A game that has just ended, as its rating needs it.
#[derive(Debug)]
pub(super) struct Closed {
    pub(super) rated: bool,
    pub(super) variant: String,
    pub(super) x: Option<PlayerId>,
    pub(super) o: Option<PlayerId>,
}

/// A player's name and dates, as their profile shows them.
#[derive(Debug)]
pub(super) struct PlayerRow {
    pub(super) name: String,
    pub(super) created_ms: u64,
    pub(super) last_seen_ms: u64,
}

/// Makes the commits so far durable, beside the database's own handle (see
/// [`Backend::sync_beside`]).
pub(super) type LogSync = Box<dyn FnMut() -> Result<(), StoreError> + Send>;

/// One database: the transaction around a batch, and each fact it reads or writes.
pub(super) trait Backend: AccountBackend + ArenaBackend + LeagueBackend + Send {
    /// Opens the transaction a batch of writes commits in.
    fn begin(&mut self) -> Result<(), StoreError>;
    fn commit(&mut self) -> Result<(), StoreError>;
    /// Abandons the open transaction, if any.
    fn rollback(&mut self);
    /// Marks where one write starts, so that it alone can be undone.
    fn savepoint(&mut self) -> Result<(), StoreError>;
    /// Keeps (or undoes) the write since the savepoint.
    fn end_savepoint(&mut self, keep: bool) -> Result<(), StoreError>;
    /// From now on, a commit is answered once written (`interval`: the disk is reached at the
    /// next [`Backend::flush`]) or once on disk (`move`, every database's default).
    fn answer_when_written(&mut self, written: bool) -> Result<(), StoreError> {
        let _ = written;
        Ok(())
    }
    /// Makes every commit so far durable (in `interval` mode).
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    /// From now on, commits are answered once written and the log is synced and checkpointed
    /// by the caller: a way to sync it without this handle, where the database has one (SQLite:
    /// syncing its log's file, which needs no lock on the database).
    fn sync_beside(&mut self) -> Result<Option<LogSync>, StoreError> {
        Ok(None)
    }
    /// Copies the log's commits into the database (after [`Backend::sync_beside`]).
    fn checkpoint(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// The largest player and game ids ever given out.
    fn last_ids(&mut self) -> Result<(u64, u64), StoreError>;
    /// Copies the whole database, consistent as of now, into the new file `to`; only SQLite
    /// can (PostgreSQL is backed up with its own tools, and memory is not kept).
    fn backup_into(&mut self, _to: &std::path::Path) -> Result<(), StoreError> {
        Err(StoreError::Refused(
            "only a SQLite store is backed up by the server; back up PostgreSQL with pg_dump"
                .to_owned(),
        ))
    }
    /// The games without an end, oldest first.
    fn live_ids(&mut self) -> Result<Vec<GameId>, StoreError>;
    /// The games without an end that `player` plays in, oldest first.
    fn live_ids_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError>;

    fn add_player(
        &mut self,
        player: PlayerId,
        name: &str,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError>;
    fn seen(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError>;
    /// The player's new name (`rename`); games already stored keep the names they had.
    fn rename_player(&mut self, player: PlayerId, name: &str) -> Result<(), StoreError>;
    /// The player whose token `presented` still works (see [`Backend::rotate_token`]), changing
    /// nothing; `None` if it does not work.
    fn token_owner(
        &mut self,
        presented: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError>;
    /// Trades `presented` for `fresh`: if `presented` still works, `fresh` becomes one of its
    /// player's tokens and `presented` stops working `rules.overlap_ms` from now (sooner if it
    /// was already due to). Returns the player, or `None` if `presented` never worked, was
    /// revoked, was replaced more than the overlap ago, or lay unused longer than
    /// `rules.idle_ms`. The player's tokens that no longer work are deleted on the way.
    fn rotate_token(
        &mut self,
        presented: TokenHash,
        fresh: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError>;
    /// A connection welcomed with token `hash` has closed: the token counts as used until now
    /// (unless it has been replaced or revoked meanwhile).
    fn touch_token(&mut self, hash: TokenHash, now: u64) -> Result<(), StoreError>;
    /// Revokes every token of `player`; returns how many there were.
    fn revoke_tokens(&mut self, player: PlayerId) -> Result<usize, StoreError>;
    /// Deletes every token that no longer works; returns how many.
    fn prune_tokens(&mut self, rules: TokenRules, now: u64) -> Result<usize, StoreError>;
    fn start_game(&mut self, start: &GameStart) -> Result<(), StoreError>;
    /// Stores a move at `ply`, unless one is stored there already: then the cell of that one.
    fn add_move(
        &mut self,
        game: GameId,
        ply: u32,
        played: &StoredMove,
    ) -> Result<Option<usize>, StoreError>;
    /// Drops every move of `game` from ply `keep` on.
    fn drop_moves(&mut self, game: GameId, keep: u32) -> Result<(), StoreError>;
    /// Raises the `seq` `game` continues from to at least `seq`.
    /// Checks a write of `game` made under lease `epoch`, in one statement: false if the game was
    /// written under a higher epoch (another node took it over), or is not stored (a game's
    /// writes all come after its start is stored); otherwise the epoch is kept as the game's.
    fn fence(&mut self, game: GameId, epoch: u64) -> Result<bool, StoreError>;
    /// Takes `game` for a new holder (`held` `None`): raises its fencing epoch by one and
    /// returns the new one, so that every write under an older epoch is refused from now on.
    /// With `held` `Some(epoch)`, confirms that epoch is still the game's, and returns it. `None`
    /// if it is not a live game (or, confirming, another holder has raised the epoch). The
    /// database, not Redis, counts the epochs: they never go back.
    fn claim(&mut self, game: GameId, held: Option<u64>) -> Result<Option<u64>, StoreError>;
    /// Takes the next `size` ids of `kind`, all above `floor` and above every id taken before;
    /// returns the last of them.
    fn reserve_ids(&mut self, kind: &str, size: u64, floor: u64) -> Result<u64, StoreError>;
    /// The server's own war games of `variant` still live (not one a player started), newest
    /// first.
    fn live_war_games(&mut self, variant: Variant) -> Result<Vec<GameId>, StoreError>;
    fn raise_seq(&mut self, game: GameId, seq: u64) -> Result<(), StoreError>;
    /// Records the end of a game still live; `None` if it had already ended.
    fn close_game(&mut self, game: GameId, ending: &Ending) -> Result<Option<Closed>, StoreError>;
    /// A player's rating in a variant, if they have one.
    fn rating(&mut self, player: PlayerId, variant: &str) -> Result<Option<Glicko>, StoreError>;
    /// A player's rating after one more rated game, and its score.
    fn save_rating(
        &mut self,
        player: PlayerId,
        variant: &str,
        after: Glicko,
        score: Score,
    ) -> Result<(), StoreError>;
    /// X's and O's rating before a rated game and the change it made.
    fn set_game_ratings(
        &mut self,
        game: GameId,
        ratings: [SeatRating; 2],
    ) -> Result<(), StoreError>;

    fn game(&mut self, game: GameId) -> Result<Option<GameRow>, StoreError>;
    fn moves(&mut self, game: GameId) -> Result<Vec<StoredMove>, StoreError>;
    fn player_row(&mut self, player: PlayerId) -> Result<Option<PlayerRow>, StoreError>;
    /// Appends a fact to the moderation log; returns its id.
    fn add_moderation(&mut self, entry: &ModerationEntry) -> Result<u64, StoreError>;
    /// The moderation log's entries above id `after`, oldest first, at most `limit`.
    fn moderation_since(
        &mut self,
        after: u64,
        limit: u32,
    ) -> Result<Vec<ModerationEntry>, StoreError>;
    fn ratings(&mut self, player: PlayerId) -> Result<Ratings, StoreError>;
    /// Per variant, a player's finished games (aborted ones left out), wins and draws.
    fn results(&mut self, player: PlayerId) -> Result<Vec<(Variant, Results)>, StoreError>;
    /// The best-rated open accounts of `variant`, named by username, from place `offset` on.
    fn leaderboard(
        &mut self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<StoredStanding>, StoreError>;
    /// At most `limit` finished games of `player` below `before`, newest first, as `viewer` may
    /// see them, each with how many moves it had.
    fn finished_games(
        &mut self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Vec<(GameRow, u32)>, StoreError>;
    /// When token `hash` was issued, or last in use (see [`Backend::touch_token`]); `None` if it
    /// is not stored.
    fn token_used_ms(&mut self, hash: TokenHash) -> Result<Option<u64>, StoreError>;
    /// At most `limit` games of `player` that ended at `since_ms` or later, the latest ended
    /// first, looked for among the player's `recent` or so latest games only (by id).
    fn ended_since(
        &mut self,
        player: PlayerId,
        since_ms: u64,
        recent: u32,
        limit: u32,
    ) -> Result<Vec<GameRow>, StoreError>;

    /// Makes a stored game unreadable, as a bug or a hand editing the records might, for the
    /// tests of what the store does then.
    #[cfg(test)]
    fn spoil(&mut self, game: GameId) -> Result<(), StoreError>;
}

/// Refuses a write of `game` from a node whose lease `epoch` is older than the game's (`None`: a
/// lone server, nothing to check).
pub(super) fn check_fence(
    db: &mut dyn Backend,
    game: GameId,
    epoch: Option<u64>,
) -> Result<(), StoreError> {
    match epoch {
        Some(epoch) if !db.fence(game, epoch)? => Err(StoreError::Fenced(game)),
        _ => Ok(()),
    }
}

/// What the server needs at start: the ids to continue from and the live games.
pub(super) fn startup(db: &mut dyn Backend) -> Result<Startup, StoreError> {
    let (last_player, last_game) = db.last_ids()?;
    let ids = db.live_ids()?;
    let mut live = Vec::with_capacity(ids.len());
    for id in ids {
        // One unreadable game must not keep the server from starting: it stays as stored.
        match live_game(db, id) {
            Ok(game) => live.push(game),
            Err(StoreError::Corrupt(why)) => error!(game = %id, %why, "cannot restore a game"),
            Err(err) => return Err(err),
        }
    }
    Ok(Startup {
        last_player,
        last_game,
        live,
    })
}

/// A live game as a restart (or a node taking it over) restores it.
pub(super) fn live_game(db: &mut dyn Backend, id: GameId) -> Result<LiveGame, StoreError> {
    let row = db
        .game(id)?
        .ok_or_else(|| StoreError::Corrupt(format!("game {id} vanished")))?;
    let mut seats = Vec::with_capacity(2);
    for seat in row.start.seats {
        seats.push(match seat {
            Sitter::Human(id) => Sitter::Human(
                player(db, id)?
                    .ok_or_else(|| StoreError::Corrupt(format!("player {id} is missing")))?,
            ),
            Sitter::Ai(level) => Sitter::Ai(level),
        });
    }
    let [x, o]: [Sitter<StoredPlayer>; 2] = seats
        .try_into()
        .map_err(|_| StoreError::Corrupt("a game without two seats".into()))?;
    Ok(LiveGame {
        seats: [x, o],
        seq: row.seq,
        moves: db.moves(id)?,
        start: row.start,
    })
}

/// A player with their ratings.
pub(super) fn player(
    db: &mut dyn Backend,
    player: PlayerId,
) -> Result<Option<StoredPlayer>, StoreError> {
    let Some(row) = db.player_row(player)? else {
        return Ok(None);
    };
    let account = db
        .account_of(player)?
        .filter(|account| account.closed_ms.is_none());
    Ok(Some(StoredPlayer {
        player,
        account: account.is_some(),
        bot: account.as_ref().is_some_and(|account| account.bot),
        // An account's name is its username, whatever the row says (accounts registered
        // before names followed usernames kept their guest's).
        name: account.map_or(row.name, |account| account.username),
        ratings: db.ratings(player)?,
    }))
}

/// A move, and the game's `seq` mark raised to `seq_mark` when the mover's updates need more room
/// (see `SEQ_RESERVE`).
pub(super) fn record_move(
    db: &mut dyn Backend,
    game: GameId,
    ply: u32,
    seq_mark: Option<u64>,
    played: &StoredMove,
) -> Result<(), StoreError> {
    match db.add_move(game, ply, played)? {
        None => {}
        // The same move is there already: an earlier try committed although its answer was lost
        // (the database stopped as it committed), and the rest of the write repeats harmlessly.
        Some(cell) if cell == played.cell => {}
        Some(stored) => {
            return Err(StoreError::Diverged {
                game,
                ply,
                stored,
                tried: played.cell,
            });
        }
    }
    match seq_mark {
        Some(mark) => db.raise_seq(game, mark),
        None => Ok(()),
    }
}

/// Moves taken back by agreement: all but the first `keep` are dropped.
pub(super) fn take_back(
    db: &mut dyn Backend,
    game: GameId,
    keep: u32,
    seq: u64,
) -> Result<(), StoreError> {
    db.drop_moves(game, keep)?;
    db.raise_seq(game, seq + SEQ_RESERVE)
}

/// What storing a game's end gave back, for its players' sessions and its arena's director.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settled {
    /// Both players' new ratings, if the game was rated.
    pub(crate) rerated: Option<Rerated>,
    /// Both players' arena lines as the end's count scored them, if it counted in an arena.
    pub(crate) counted: Vec<Entrant>,
}

/// Records the end; counts it in its arena, if an arena started it; for a rated game between two
/// people, rates it. Returns what that gave.
pub(super) fn end_game(
    db: &mut dyn Backend,
    game: GameId,
    ending: &Ending,
) -> Result<Settled, StoreError> {
    let Some(closed) = db.close_game(game, ending)? else {
        return Ok(Settled::default());
    };
    let counted = match db.arena_of_game(game)? {
        Some((arena, row)) => {
            let moves = u32::try_from(db.moves(game)?.len()).unwrap_or(u32::MAX);
            super::arenas::count_in_arena(db, arena, row, ending, moves)?
        }
        None => Vec::new(),
    };
    let rerated = rate(db, game, ending, closed)?;
    Ok(Settled { rerated, counted })
}

/// Rates a game whose end is being stored, if it is rated and not aborted; counts an unrated
/// one in the league. Returns the new ratings.
fn rate(
    db: &mut dyn Backend,
    game: GameId,
    ending: &Ending,
    closed: Closed,
) -> Result<Option<Rerated>, StoreError> {
    if ending.reason == noughts_protocol::EndReason::Aborted {
        return Ok(None);
    }
    // A league game is unrated (on the players' ratings), whoever sits in it.
    if !closed.rated {
        count_in_league(db, game, ending)?;
        return Ok(None);
    }
    let Closed {
        rated: true,
        variant,
        x: Some(x),
        o: Some(o),
    } = closed
    else {
        return Ok(None);
    };
    // Read (and, on PostgreSQL, locked) lower player id first, in every game on every node, so
    // that two ends rating the same two players at once take their rows in one order.
    let (x_before, o_before) = if x.0 <= o.0 {
        let x_before = db.rating(x, &variant)?.unwrap_or(rating::NEW);
        (x_before, db.rating(o, &variant)?.unwrap_or(rating::NEW))
    } else {
        let o_before = db.rating(o, &variant)?.unwrap_or(rating::NEW);
        (db.rating(x, &variant)?.unwrap_or(rating::NEW), o_before)
    };
    let x_score = match ending.winner {
        Some(Mark::X) => Score::Win,
        Some(Mark::O) => Score::Loss,
        None => Score::Draw,
    };
    let (x_after, o_after) = rating::rate_game(x_before, o_before, x_score);
    // Saved in the same order.
    let mut saves = [(x, x_after, x_score), (o, o_after, opposite(x_score))];
    saves.sort_by_key(|(player, _, _)| player.0);
    for (player, after, score) in saves {
        db.save_rating(player, &variant, after, score)?;
    }
    db.set_game_ratings(
        game,
        [
            SeatRating {
                before: x_before.rating,
                change: x_after.rating - x_before.rating,
            },
            SeatRating {
                before: o_before.rating,
                change: o_after.rating - o_before.rating,
            },
        ],
    )?;
    Ok(Some(Rerated {
        x: x_after,
        o: o_after,
    }))
}

/// Counts `game`, which has just ended (not aborted), in the league if it is a league game: a
/// war game of the server's own (between two AI levels, or with a bot in a seat), and in its
/// variant's running table. Inside the end's transaction, so that an end counts exactly when it
/// is stored, and once.
fn count_in_league(db: &mut dyn Backend, game: GameId, ending: &Ending) -> Result<(), StoreError> {
    let Some(row) = db.game(game)? else {
        return Ok(());
    };
    let start = &row.start;
    let (GameKind::War, None) = (start.kind, start.owner) else {
        return Ok(());
    };
    let counted = LeagueGame {
        n: 0,
        game,
        variant: start.variant,
        x: league_key(start.seats[0]),
        o: league_key(start.seats[1]),
        winner: ending.winner,
        ended_ms: ending.ended_ms,
    };
    super::league_table::count(db, &counted)
}

/// A seat of a league game as the league names its entrant: an AI level by its name, a bot (the
/// only person a war game of the server's own seats) as `bot:` and its player id.
pub(crate) fn league_key(seat: Sitter) -> String {
    match seat {
        Sitter::Ai(level) => text(level),
        Sitter::Human(player) => format!("bot:{}", player.0),
    }
}

fn opposite(score: Score) -> Score {
    match score {
        Score::Win => Score::Loss,
        Score::Draw => Score::Draw,
        Score::Loss => Score::Win,
    }
}

/// A name as the records show it, and what it is the name of.
struct Shown {
    name: String,
    /// A guest's (no account).
    guest: bool,
    /// A bot account's.
    bot: bool,
}

/// `player`'s name as the records show it: an account's username (marked when the account is
/// closed), else the guest's name; and whether it is a guest's or a bot's.
fn shown_name(db: &mut dyn Backend, player: PlayerId, name: String) -> Result<Shown, StoreError> {
    Ok(match db.account_of(player)? {
        Some(account) if account.closed_ms.is_some() => Shown {
            name: closed_name(&account.username),
            guest: false,
            bot: account.bot,
        },
        Some(account) => Shown {
            name: account.username,
            guest: false,
            bot: account.bot,
        },
        None => Shown {
            name,
            guest: true,
            bot: false,
        },
    })
}

/// A game's row with the names of the people in it.
fn stored_game(db: &mut dyn Backend, row: GameRow, moves: u32) -> Result<StoredGame, StoreError> {
    let mut names = [None, None];
    for (name, seat) in names.iter_mut().zip(&row.start.seats) {
        if let Sitter::Human(id) = seat {
            let named = db.player_row(*id)?.map(|p| p.name).unwrap_or_default();
            *name = Some(shown_name(db, *id, named)?);
        }
    }
    let [x_name, o_name] = names;
    let seat = |named: Option<Shown>, (rating, change): (Option<f64>, Option<f64>)| StoredSeat {
        guest: named.as_ref().is_some_and(|shown| shown.guest),
        bot: named.as_ref().is_some_and(|shown| shown.bot),
        name: named.map(|shown| shown.name),
        rating,
        change,
    };
    Ok(StoredGame {
        seats: [seat(x_name, row.ratings[0]), seat(o_name, row.ratings[1])],
        start: row.start,
        ended_ms: row.ended_ms,
        result: row.result,
        moves,
    })
}

/// A player's finished games, newest first, below `before`, as `viewer` may see them; `None` if
/// there is no such player. The flag says whether older games follow.
pub(super) fn history(
    db: &mut dyn Backend,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Result<Option<(Vec<StoredGame>, bool)>, StoreError> {
    if db.player_row(player)?.is_none() {
        return Ok(None);
    }
    let rows = db.finished_games(player, before, limit.saturating_add(1), viewer)?;
    let more = rows.len() > limit as usize;
    let mut games = Vec::with_capacity(rows.len());
    for (row, moves) in rows.into_iter().take(limit as usize) {
        if row.ended_ms.is_none() || row.result.is_none() {
            continue;
        }
        games.push(stored_game(db, row, moves)?);
    }
    Ok(Some((games, more)))
}

/// How many of a player's latest games are looked through for those that ended while it was
/// away: those were live when it left, or began since (a room it had open), and a player does
/// not have that many live at once, while looking no further keeps the question cheap for a
/// player with thousands of games behind it.
const RECENT_GAMES: u32 = 64;

/// The games of `player` that ended since token `presented` was last in use (issued, or held by
/// a connection until it closed) and within `window_ms` of `now`, at most `limit`, the earliest
/// ended first; none if the token is not stored.
pub(super) fn ended_while_away(
    db: &mut dyn Backend,
    player: PlayerId,
    presented: TokenHash,
    now: u64,
    window_ms: u64,
    limit: u32,
) -> Result<Vec<EndedGame>, StoreError> {
    let Some(used) = db.token_used_ms(presented)? else {
        return Ok(Vec::new());
    };
    let since = used.max(now.saturating_sub(window_ms));
    let mut ended = Vec::new();
    for row in db.ended_since(player, since, RECENT_GAMES, limit)? {
        if row.result.is_none() {
            continue;
        }
        let moves = db.moves(row.start.game)?;
        let seq = row.seq;
        let count = u32::try_from(moves.len()).unwrap_or(u32::MAX);
        let mut ratings = [None, None];
        for (rating, seat) in ratings.iter_mut().zip(&row.start.seats) {
            if let Sitter::Human(person) = seat {
                *rating = Some(db.ratings(*person)?.get(row.start.variant).rating);
            }
        }
        let game = stored_game(db, row, count)?;
        ended.push(EndedGame {
            game,
            moves,
            seq,
            ratings,
        });
    }
    ended.reverse();
    Ok(ended)
}

/// A game and its moves, if `viewer` may see it: any listed game, and a game from a private room
/// only to its players.
pub(super) fn record(
    db: &mut dyn Backend,
    id: GameId,
    viewer: PlayerId,
) -> Result<Option<(StoredGame, Vec<StoredMove>)>, StoreError> {
    let Some(row) = db.game(id)? else {
        return Ok(None);
    };
    let plays = |seat: &Sitter| seat.human() == Some(&viewer);
    if !row.start.listed && !row.start.seats.iter().any(plays) {
        return Ok(None);
    }
    let played = db.moves(id)?;
    let moves = u32::try_from(played.len()).unwrap_or(u32::MAX);
    let game = stored_game(db, row, moves)?;
    Ok(Some((game, played)))
}

/// A player's name, dates, ratings and results; `None` if there is no such player.
pub(super) fn profile(
    db: &mut dyn Backend,
    id: PlayerId,
) -> Result<Option<StoredProfile>, StoreError> {
    let Some(row) = db.player_row(id)? else {
        return Ok(None);
    };
    let ratings = db.ratings(id)?;
    let shown = shown_name(db, id, row.name)?;
    let mut profile = StoredProfile {
        player: id,
        name: shown.name,
        guest: shown.guest,
        bot: shown.bot,
        created_ms: row.created_ms,
        last_seen_ms: row.last_seen_ms,
        ratings: [(rating::NEW, 0); 4],
        results: [Results::default(); 4],
        podiums: db.podiums_of(id, super::arenas::PROFILE_PODIUMS)?,
    };
    for variant in Variant::ALL {
        let glicko = ratings.get(variant);
        profile.ratings[Ratings::slot(variant)] = (
            Glicko {
                rating: glicko.rating,
                deviation: glicko.deviation,
                ..rating::NEW
            },
            ratings.games(variant),
        );
    }
    for (variant, results) in db.results(id)? {
        profile.results[Ratings::slot(variant)] = results;
    }
    Ok(Some(profile))
}
