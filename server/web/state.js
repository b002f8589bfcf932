// @ts-check
/**
 * The page's one state, changed by the server's messages and the player's clicks, and what
 * follows from it alone: the address of what is shown and the tab's title.
 */

/** What the page holds and shows. */
export const state = {
  /** @type {number | null} */ player: null,
  /** @type {Map<number, any>} */ seeks: new Map(),
  /** @type {Map<string, any>} */ rooms: new Map(),
  /** @type {Map<number, any>} */ listed: new Map(),
  /** @type {Map<number, any>} */ games: new Map(),
  /** The game or replay the view shows (or waits for). @type {number | null} */ current: null,
  /** @type {"lobby" | "game" | "history" | "replay" | "leaderboard" | "browse" | "account" | "profile" | "league"} */ view: "lobby",
  /** The variant the leaderboard shows. */ recordsVariant: "classic",
  /** The variant "My games" shows ("all" for every one), and the results it shows ("all", "won", "lost", "drawn"). */ historyVariant: "all", recordsOutcome: "all",
  /** A watcher's chat tab: the spectators' chat, where what a watcher types goes, unless they look at the players'. @type {"players" | "spectators"} */ chatTab: "spectators",
  /** The spectators' lines of the war game just watched, carried on to the next one. @type {any[] | null} */ carried: null,
  /** A watcher's lines that reached a war game just over: sent to the next one. @type {string[]} */ unsentChat: [],
  /** Chat lines sent and not yet answered, by request id: sent again to the next war game if the game ended first. @type {Map<number, {game: number, text: string}>} */ chatSent: new Map(),
  /** @type {any} */ seeking: null,
  /** The variant and clock of the seek last asked for (the server's `seeking` names the variant only). @type {any} */ seekAsked: null,
  /** @type {string | null} */ room: null,
  /** @type {any[]} */ history: [],
  /** @type {any} */ replay: null,
  /** @type {any[]} */ leaderboard: [],
  /** A `#room=` link is being followed: the address waits for the game it starts. */ joining: false,
  /** The address last followed; until the first, the page keeps the address it was opened at. @type {string | null} */ followed: null,
  /** Connected and welcomed. */ online: false,
  /** Following the lobby (subscribed): only while it is shown, or while a war game's watcher waits for the next. */ following: false,
  /** A finished war game's watcher waits for the lobby to list the next one. */ awaitingWar: false,
  /** The shown game's lobby entry when it was opened (the lobby may drop it before the watch is answered). @type {any} */ opened: null,
  /** A war game that had ended before its watch arrived, whose next one is awaited. */ warGone: /** @type {{variant: string, game: number} | null} */ (null),
  /** How many seeks and rooms there are, beyond those held. */ seeksTotal: 0, roomsTotal: 0,
  /** People online, games in play, games per variant. @type {any} */ totals: null,
  /** The arenas the lobby lists. @type {any[]} */ arenas: [],
  /** The standings of the arena followed (its last `arena` frame). @type {any} */ arena: null,
  /** The arenas the player is in (joined, not withdrawn), as the server last said. @type {Set<number>} */ arenasJoined: new Set(),
  /** The arena this tab last asked to join or leave, to say so when the server confirms. @type {number | null} */ arenaAsked: null,
  /** The game the arena paired us into, and when (`performance.now()`) its finished board gives way to the standings. */
  arenaGame: /** @type {number | null} */ (null), arenaBackAt: /** @type {number | null} */ (null),
  /** Browsing all live games: the filter, the cursors of the pages before, the page, the next cursor. */
  browse: { variant: "", cursors: /** @type {(number | undefined)[]} */ ([]), after: /** @type {number | undefined} */ (undefined), games: /** @type {any[]} */ ([]), next: /** @type {number | undefined} */ (undefined), loading: false },
  /** The name asked for by a rename, and the request's id once sent, until it is answered. @type {{name: string, id: number | null} | null} */ renaming: null,
  /** A move was tried while offline (said on the board until the connection is back). */ unsent: false,
  /** The engines' league's tables by variant, as last sent (null: the server runs none there). @type {Map<string, any>} */ leagues: new Map(),
  /** The variant the league view shows, and the one whose table this connection follows. */ leagueVariant: "classic", leagueFollowed: /** @type {string | null} */ (null),
  /** The variants of `league` requests not yet answered, by request id. @type {Map<number, string>} */ leagueAsks: new Map(),
};

/** The address of what is shown. */
export function addressOf(/** @type {typeof state} */ state) {
  switch (state.view) {
    case "game": return `#game=${state.current}`;
    case "replay": return `#replay=${state.current}`;
    case "history": return "#history";
    case "leaderboard": return `#leaderboard=${state.recordsVariant}`;
    case "league": return `#league=${state.leagueVariant}`;
    case "browse": return state.browse.variant ? `#games=${state.browse.variant}` : "#games";
    case "account": return "#account";
    case "profile": return `#profile=${state.current}`;
    default: return "";
  }
}

/** The tab's title: what calls the player back ("Your move", "Match found"), then the site. */
export function title(/** @type {typeof state} */ state) {
  const game = state.view === "game" && state.current !== null ? state.games.get(state.current) : null;
  if (!game?.you || game.result) return "noughts";
  if (game.to_move === game.you) return "Your move · noughts";
  if (game.moves.length === 0) return "Match found · noughts";
  return `Waiting for ${game[game.to_move]?.name ?? "the opponent"} · noughts`;
}
