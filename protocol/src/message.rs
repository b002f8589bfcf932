//! The two message enums: everything a client can ask ([`ClientMessage`]) and everything the
//! server sends ([`ServerMessage`]), each tagged by its `"type"`.

use serde::{Deserialize, Serialize};

use crate::account::{ChangePassword, CloseAccount, Credentials, SessionInfo};
use crate::arena::{ArenaId, ArenaInfo, ArenaLine, ArenaView, CreateArena, ListArenas};
use crate::error::ErrorCode;
use crate::game::{
    ChatLine, ClaimOutcome, ClockSpec, Clocks, GameResult, GameState, OfferKind, PlayAi,
    RatingChanges, StartWar, Watch,
};
use crate::ids::{GameId, PlayerId, SeekId};
use crate::league::{League, LeagueTable};
use crate::lobby::{
    CreateRoom, GameInfo, ListGames, LobbyUpdate, RoomInfo, Seek, SeekInfo, Totals,
};
use crate::moderation::{ModeratedPlayer, Report};
use crate::records::{
    GameRecord, GameSummary, History, Leaderboard, LeaderboardEntry, MoveAnalysis, Profile, Rating,
    Verdict,
};
use noughts_engine::{Mark, Variant};

/// Everything a client can ask of the server. Its `Debug` leaves the session token out, so a
/// logged message cannot give a session away.
#[derive(derive_more::Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// First message on every connection. `token` resumes an earlier session; `username` and
    /// `password` (instead of a token) sign in to an account, opening a new session for this
    /// device.
    Hello {
        protocol: u32,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[debug("{}", if token.is_some() { "Some(<redacted>)" } else { "None" })]
        token: Option<String>,
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        credentials: Option<Credentials>,
    },
    /// Turn this guest into an account: it keeps its id, history and ratings.
    Register(Credentials),
    /// List this account's signed-in sessions, one per device.
    Sessions,
    /// End one of this account's sessions: its tokens stop working and its connections close.
    RevokeSession { session: u64 },
    /// Turn this account into a bot account, for good: its name is marked "BOT" everywhere and
    /// quick match pairs it only with those who choose to play bots. Refused to a guest and to
    /// an account that has played rated games.
    BecomeBot,
    /// Change the password; every other session of the account ends.
    ChangePassword(ChangePassword),
    /// Close the account for good (the password is asked again): every session ends.
    CloseAccount(CloseAccount),
    /// Change the name others see, keeping the player (its games and ratings): the name new
    /// games, the lobby and the records show from now on. Same rules as `hello`'s name.
    Rename { name: String },
    /// End the session for good: every token of the player stops working, its live games are
    /// resigned, and all its connections close.
    Logout,
    /// Receive the lobby snapshot, then its changes (`lobby_update`).
    SubscribeLobby,
    /// Stop receiving lobby changes.
    UnsubscribeLobby,
    /// One page of every listed live game, by game id.
    ListGames(ListGames),
    /// Quick match: be paired with the next player seeking the same variant and clock.
    Seek(Seek),
    /// Withdraw the current seek.
    CancelSeek,
    /// Accept another player's waiting seek, as the lobby lists it: the game starts at once, on
    /// its terms.
    AcceptSeek { seek: SeekId },
    /// Open a room that others join by its invite code.
    CreateRoom(CreateRoom),
    /// Close a room this player opened that nobody has joined yet.
    CloseRoom { code: String },
    /// Join a room by its invite code; the game starts at once.
    JoinRoom { code: String },
    /// Play against an AI seat.
    PlayAi(PlayAi),
    /// Start an AI-vs-AI match and watch it.
    StartWar(StartWar),
    /// Watch a live game: a `game_state` snapshot, then every update. A game from a private room
    /// needs its invite `code` unless the watcher plays in it.
    Watch(Watch),
    /// Stop watching a game.
    Unwatch { game: GameId },
    /// Put the mover's mark on `cell` (cell numbers as in the engine: row-major, layer-major).
    Move { game: GameId, cell: usize },
    /// Give up the game.
    Resign { game: GameId },
    /// Offer a rematch with sides swapped, or accept the opponent's offer.
    Rematch { game: GameId },
    /// Offer a draw, or accept the opponent's offer.
    OfferDraw { game: GameId },
    /// Ask to take one's last move back (unrated games), or accept the opponent's request.
    Takeback { game: GameId },
    /// Decline the opponent's pending draw offer or takeback request, or, after the game, their
    /// rematch offer.
    Decline { game: GameId },
    /// Withdraw one's own pending draw offer or takeback request, or, after the game, one's
    /// rematch offer.
    CancelOffer { game: GameId },
    /// End the game while the opponent has been away long enough: win it, or call it a draw.
    Claim { game: GameId, outcome: ClaimOutcome },
    /// End the game with no result before both sides have moved.
    Abort { game: GameId },
    /// Say something in a game's chat (players and watchers).
    Chat { game: GameId, text: String },
    /// Application-level ping; the server answers `pong`.
    Ping,
    /// The best-rated players of a variant, best first.
    Leaderboard(Leaderboard),
    /// The engines' league of a variant: its table, and with `follow` the table again each
    /// time a league game ends.
    League(League),
    /// Stop following the league.
    UnfollowLeague,
    /// A bot account enters a variant's engines' league: the round robin pairs it with the AI
    /// levels and the other bots entered, in league games played over this protocol.
    EnterLeague { variant: Variant },
    /// A bot account leaves a variant's league: no more pairings; its games stay counted.
    LeaveLeague { variant: Variant },
    /// A player's finished games, newest first.
    History(History),
    /// The full record of a game: seats, every move with its time, and the result.
    GameRecord { game: GameId },
    /// The engine's verdict on every move of a finished game.
    AnalyseGame { game: GameId },
    /// A player's ratings and results in every variant.
    Profile {
        /// Whose profile (default: your own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        player: Option<PlayerId>,
        /// Whose profile, by an account's username (any case); when given, `player` is not
        /// looked at.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username: Option<String>,
    },
    /// Hide a player's chat from me, for good (until `unmute`): the server stops sending me their
    /// chat lines, on every connection and after I come back.
    Mute { player: PlayerId },
    /// Show a muted player's chat again.
    Unmute { player: PlayerId },
    /// Never be paired with a player again, and refuse each other's rooms and seeks.
    Block { player: PlayerId },
    /// Lift a block.
    Unblock { player: PlayerId },
    /// The players I mute and block.
    ModerationList,
    /// Tell the server's operator about a player, with what they did; `game` points at the game it
    /// happened in, and the report is kept with that game's record.
    Report(Report),
    /// One page of the arenas upcoming or running, by arena id (private ones are never listed).
    ListArenas(ListArenas),
    /// Open an arena (accounts only): `arena_created` answers, with the invite code of a
    /// private one.
    CreateArena(CreateArena),
    /// Join an arena, or come back to one withdrawn from (keeping the score); a private one needs
    /// its invite `code`. The connection follows the arena's standings from then on.
    JoinArena {
        arena: ArenaId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Stop being paired in an arena; the score stays, and `join_arena` comes back.
    WithdrawArena { arena: ArenaId },
    /// An arena's standings (`arena`), then their changes pushed while this connection follows
    /// it; a private arena needs its invite `code` unless the player has joined it.
    Arena {
        arena: ArenaId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Stop following an arena's standings.
    UnwatchArena { arena: ArenaId },
    /// A page of an arena's standings from place `offset + 1` on.
    ArenaPage {
        arena: ArenaId,
        #[serde(default)]
        offset: u32,
    },
}

/// Everything the server sends. Its `Debug` leaves the session token out.
#[derive(derive_more::Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to `hello`. Keep `token` to resume this identity later.
    Welcome {
        protocol: u32,
        player: PlayerId,
        name: String,
        #[debug("<redacted>")]
        token: String,
        /// True when `hello` carried a token that resumed an earlier session.
        resumed: bool,
        /// The player's rating in each variant.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        ratings: Vec<Rating>,
        /// After a sign-in with a password: this device's cookie, to keep beside the token and
        /// present in the next sign-in's credentials (see [`crate::Credentials`]).
        #[debug("{}", if device_cookie.is_some() { "Some(<redacted>)" } else { "None" })]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device_cookie: Option<String>,
        /// The account's username when the player has one: its name everywhere (`name` is the
        /// same); absent for a guest.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username: Option<String>,
        /// True when the account is a bot account.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
    },
    /// A request was refused. `code` is stable and documented; `message` is for people.
    Error { code: ErrorCode, message: String },
    /// A request that has no other answer succeeded (sent only when the request had an `id`).
    Ok,
    /// Answer to `ping`.
    Pong,
    /// The lobby, sent on `subscribe_lobby` and on resuming a subscribed session: what people
    /// choose from, bounded whatever the site's size.
    Lobby {
        /// The newest quick-match seeks waiting (at most [`crate::LOBBY_SEEKS`]), oldest first.
        seeks: Vec<SeekInfo>,
        /// How many seeks wait in all.
        seeks_total: u32,
        /// The newest open public rooms (at most [`crate::LOBBY_ROOMS`]), oldest first.
        rooms: Vec<RoomInfo>,
        /// How many public rooms are open in all.
        rooms_total: u32,
        /// The games the lobby shows: the war games, then the featured games.
        games: Vec<GameInfo>,
        /// The site's totals.
        totals: Totals,
        /// The public arenas running or starting within the hour, soonest first (at most
        /// [`crate::LOBBY_ARENAS`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        arenas: Vec<ArenaInfo>,
    },
    /// What changed in the lobby, gathered: at most about two a second.
    LobbyUpdate(Box<LobbyUpdate>),
    /// The answer to `list_games`: live listed games by id.
    GameList {
        games: Vec<GameInfo>,
        /// The `after` of the next page; absent on the last one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<GameId>,
    },
    /// The seek was registered; a `game_state` follows when an opponent is found.
    Seeking {
        /// The seek's id, as the lobby lists it while it waits.
        seek: SeekId,
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
    },
    /// The room was opened; give `code` to the opponent.
    RoomCreated {
        code: String,
        variant: Variant,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockSpec>,
        private: bool,
    },
    /// A full snapshot of one game: on start, on `watch`, and on resume.
    GameState(Box<GameState>),
    /// A move was made.
    Moved {
        game: GameId,
        seq: u64,
        mark: Mark,
        cell: usize,
        board: String,
        /// Whose turn it is now; absent when the move ended the game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_move: Option<Mark>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// The game ended.
    GameOver {
        game: GameId,
        seq: u64,
        board: String,
        result: GameResult,
        /// In a rated game, both players' new ratings and the change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<RatingChanges>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// A player's connection dropped or came back. While away, `grace_ms` says how long they have
    /// left before they lose by abandonment, and `claim_ms` how long before the opponent may
    /// `claim` the game.
    Presence {
        game: GameId,
        seq: u64,
        mark: Mark,
        connected: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grace_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claim_ms: Option<u64>,
    },
    /// The number of people watching changed.
    Watchers { game: GameId, seq: u64, count: u32 },
    /// A chat line in a game.
    Chat {
        game: GameId,
        seq: u64,
        #[serde(flatten)]
        line: ChatLine,
    },
    /// A player offered a rematch; the other accepts by sending `rematch` too.
    RematchOffered { game: GameId, seq: u64, by: Mark },
    /// A player offered a draw or asked for a takeback; the other accepts by sending the same
    /// request, or declines.
    Offered {
        game: GameId,
        seq: u64,
        by: Mark,
        offer: OfferKind,
    },
    /// The pending offer was declined.
    Declined {
        game: GameId,
        seq: u64,
        by: Mark,
        offer: OfferKind,
    },
    /// The pending offer was withdrawn by the player who made it (`by`).
    Withdrawn {
        game: GameId,
        seq: u64,
        by: Mark,
        offer: OfferKind,
    },
    /// Moves were taken back by agreement: the board and moves as they now stand. `by` is the
    /// side whose request was granted.
    TakenBack {
        game: GameId,
        seq: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Mark>,
        board: String,
        moves: Vec<usize>,
        to_move: Mark,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// The server is going away; the connection closes with 1001 next.
    Shutdown { message: String },
    /// A game of yours, or one you watch, is paused: the site lost, for a moment, a part it
    /// needs to keep the game. No clock runs and no move counts until the game's next
    /// `game_state`, which says it resumed.
    GamePaused { game: GameId, message: String },
    /// The answer to `leaderboard`.
    Leaderboard {
        variant: Variant,
        /// The places skipped: the first entry's `rank` is `offset + 1`.
        offset: u32,
        players: Vec<LeaderboardEntry>,
    },
    /// The answer to `league`, and, to a follower, the table each time a league game ends.
    LeagueTable(Box<LeagueTable>),
    /// The answer to `history`.
    History {
        player: PlayerId,
        /// Newest first.
        games: Vec<GameSummary>,
        /// Whether older games follow (ask again with `before` set to the last `game`).
        more: bool,
    },
    /// The answer to `game_record`.
    GameRecord(Box<GameRecord>),
    /// The answer to `analyse_game`, and what the server pushes after it while the analysis
    /// fills in: one verdict per move, in the order of the moves, and each move judged in full.
    GameAnalysis {
        game: GameId,
        verdicts: Vec<Verdict>,
        /// Each move judged in full, in the order of the moves.
        #[serde(default)]
        moves: Vec<MoveAnalysis>,
        /// Whether every move is settled: no more `game_analysis` follows for this game.
        #[serde(default)]
        complete: bool,
    },
    /// The answer to `rename`: the name as it will be shown (trimmed and normalised).
    Renamed { name: String },
    /// The answer to `profile`.
    Profile(Box<Profile>),
    /// The answer to `moderation_list`: the players I mute and block, oldest first.
    ModerationList {
        muted: Vec<ModeratedPlayer>,
        blocked: Vec<ModeratedPlayer>,
    },
    /// The answer to `register`: this player is now the account `username`.
    Registered {
        player: PlayerId,
        username: String,
        /// This device's cookie, as `welcome` gives one after a sign-in.
        #[debug("{}", if device_cookie.is_some() { "Some(<redacted>)" } else { "None" })]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device_cookie: Option<String>,
    },
    /// The answer to `sessions`: the account's sessions, newest first.
    SessionList { sessions: Vec<SessionInfo> },
    /// The answer to `list_arenas`.
    ArenaList {
        arenas: Vec<ArenaInfo>,
        /// The `after` of the next page; absent on the last one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<ArenaId>,
    },
    /// The answer to `create_arena`: the arena, and the invite code of a private one.
    ArenaCreated {
        info: ArenaInfo,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// An arena's standings: the answer to `arena` and `join_arena`, then pushed, gathered
    /// (about two a second at most), while they change.
    Arena(Box<ArenaView>),
    /// The answer to `arena_page`: at most [`crate::ARENA_PAGE`] lines from place
    /// `offset + 1` on.
    ArenaPage {
        arena: ArenaId,
        offset: u32,
        lines: Vec<ArenaLine>,
    },
    /// Whether the player is in an arena (joined, not withdrawn): told to each of the player's
    /// connections when it joins or withdraws, and after `welcome` for each arena not finished
    /// that it is in, so that every tab and every reload marks the arenas it is in.
    ArenaJoined { arena: ArenaId, joined: bool },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::ClientFrame;
    use crate::ids::RequestId;
    use crate::limits::PROTOCOL_VERSION;

    #[test]
    fn debug_output_never_shows_a_token() {
        let token = "0123456789abcdef0123456789abcdef";
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "ada".to_owned(),
            token: Some(token.to_owned()),
            credentials: None,
        };
        let welcome = ServerMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            player: PlayerId(7),
            name: "ada".to_owned(),
            token: token.to_owned(),
            resumed: true,
            ratings: Vec::new(),
            device_cookie: Some(token.to_owned()),
            username: None,
            bot: false,
        };
        let frame = ClientFrame {
            id: Some(RequestId::Number(1)),
            message: hello.clone(),
        };
        for shown in [
            format!("{hello:?}"),
            format!("{welcome:?}"),
            format!("{frame:?}"),
            format!("{hello:#?}"),
        ] {
            assert!(!shown.contains(token), "{shown}");
            assert!(shown.contains("ada"), "the rest is still shown: {shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
        }
        let fresh = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "bo".to_owned(),
            token: None,
            credentials: None,
        };
        assert!(format!("{fresh:?}").contains("token: None"));
    }
}
