// @ts-check
/**
 * The browser client: the lobby, games, chat, history and replays, over the protocol in
 * PROTOCOL.md. One state, changed by the server's messages and the player's clicks; each change
 * builds the view afresh and morphs it into the page, so that only what changed is touched.
 * Every view has its own address (`#game=ID`, `#replay=ID`, `#history`, `#leaderboard=VARIANT`,
 * `#games` for all live games, `#account` for signing up, in and out, `#profile=ID` for a
 * player's profile, where every name links, the lobby at `/`), and
 * Back and Forward move between them; `#room=CODE` joins a private room. The lobby is followed
 * only while it is shown.
 */

import "./errors.js";
import { account, accountActionsFor, accountMessage, accountView, forget, listSessions } from "./account.js";
import { Connection, storedName, storeName, storeUsername } from "./net.js";
import { focusBoard } from "./board.js";
import { awayTick, gameView } from "./game.js";
import { arenaBackDue, arenaFrame, arenaGameState, arenaJoined } from "./arena.js";
import { applyLobbyUpdate, browseView, lobbyView } from "./lobby.js";
import { answered, listed, refused } from "./moderation.js";
import { openProfile, profileMessage, profileView } from "./profile.js";
import { historyView, leaderboardView } from "./records.js";
import { leagueView } from "./league.js";
import { settings } from "./play.js";
import { replayView, stepReplay } from "./replay.js";
import { errorWords, placeNotice, sayAt } from "./notice.js";
import { chime, muteSwitch } from "./sound.js";
import { clockText, el, morph } from "./views.js";
import { addressOf, state, title } from "./state.js";
import { applyUpdate } from "./updates.js";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const statusLine = /** @type {HTMLElement} */ (document.getElementById("status"));
const announcer = /** @type {HTMLElement} */ (document.getElementById("announce"));
const nameInput = /** @type {HTMLInputElement} */ (document.getElementById("name"));
const muteButton = /** @type {HTMLButtonElement} */ (document.getElementById("mute"));
const accountLink = /** @type {HTMLAnchorElement} */ (document.getElementById("account-link"));

muteSwitch(muteButton);

const net = new Connection(onMessage, (status) => {
  statusLine.textContent = status;
  statusLine.dataset.status = status;
  state.online = status === "online";
  if (state.online) state.unsent = false;
  if (status === "logged out") {
    becameGuest();
    say(account.farewell || "You have logged out: you play as a new guest now.");
    account.farewell = "";
  }
  render();
}, (username) => {
  becameGuest();
  say(`This device was signed out of ${username} (its session was ended on another device, or the password changed): you play as a new guest now.`);
  render();
});

/** The page is a new guest: no account, and none of the games of the player it was. */
function becameGuest() {
  forget();
  state.games.clear();
  state.history = [];
}

nameInput.value = storedName();
// A new name keeps the player: `rename` changes the name others see, and the games and ratings
// stay. Starting afresh as a new player is a separate, explicit action (`startAfresh`).
nameInput.addEventListener("change", () => {
  const name = nameInput.value.trim();
  if (!name) return;
  state.renaming = { name, id: null };
  // Offline, the rename waits for the welcome (which brings the name the server keeps).
  if (state.online) state.renaming.id = net.send({ type: "rename", name });
});

/** Forgets this browser's player and comes back as a new one (no games, no ratings). */
function startAfresh() {
  localStorage.removeItem("noughts.token");
  forget();
  state.games.clear();
  state.history = [];
  say("Starting afresh as a new player…");
  net.reconnect();
}

/** The name in the header: an account's (its username) cannot be changed there. */
function showName(/** @type {string} */ name) {
  nameInput.value = name;
  nameInput.readOnly = Boolean(account.username);
}

/** The name the server shows now (after a rename, here or in another tab): said if asked here. */
function renamed(/** @type {string} */ name) {
  nameInput.value = name;
  storeName(name);
  if (!state.renaming) return;
  state.renaming = null;
  sayAt(addressOf(state), `You are now ${name}: the same player, with your games and ratings. `, undefined,
    () => el("button", { type: "button", id: "start-afresh", onclick: () => startAfresh() }, `Start afresh as a new player named ${name} instead`));
}

// Back and Forward fire both events (and a typed address may fire either): the address is
// followed once per change.
window.addEventListener("popstate", () => followAddress());
window.addEventListener("hashchange", () => followAddress());

/**
 * Says `text` beside the control last used until the player moves to another view; `details`
 * (an error's code and the server's words) goes on a second, smaller line.
 * @param {string} text
 * @param {string} [details]
 */
function say(text, details) {
  sayAt(addressOf(state), text, details);
  render();
}

/** Tells a screen reader what just happened on the board (the live region outside `main`). */
function announce(/** @type {string} */ text) {
  announcer.textContent = text;
}

/** @param {any} message */
function onMessage(message) {
  switch (message.type) {
    case "welcome":
      if (message.signedIn) {
        // Signed in: the page is the account's player now, not the guest it was.
        account.signingIn = false;
        account.username = message.signedIn;
        // The view says whom it is signed in as: said once, there.
        account.done = "";
        state.games.clear();
        state.history = [];
      }
      state.player = message.player;
      if (state.view === "account") listSessions(accountActions);
      // An account's name is its username: kept apart from the guest's, which a sign-out brings back.
      storeUsername(account.username = message.username ?? null);
      showName(message.name);
      if (!message.username) storeName(message.name);
      // A rename asked while offline goes now.
      if (state.renaming && state.renaming.name !== message.name) state.renaming.id = net.send({ type: "rename", name: state.renaming.name });
      else state.renaming = null;
      // A new connection follows nothing yet: `followLobby` subscribes if the lobby is shown,
      // `followLeague` follows the league shown.
      state.following = false;
      state.leagueFollowed = null;
      // The server says which arenas the player is in next (`arena_joined`), for whoever it is now.
      state.arenasJoined.clear();
      state.leagueAsks.clear();
      followAddress();
      break;
    case "error": onError(message); break;
    case "lobby":
      state.seeks = new Map(message.seeks.map((/** @type {any} */ s) => [s.seek, s]));
      state.rooms = new Map(message.rooms.map((/** @type {any} */ r) => [r.code, r]));
      state.listed = new Map(message.games.map((/** @type {any} */ g) => [g.game, g]));
      state.seeksTotal = message.seeks_total;
      state.roomsTotal = message.rooms_total;
      state.totals = message.totals;
      state.arenas = message.arenas ?? [];
      break;
    case "lobby_update": applyLobbyUpdate(state, message); break;
    case "seeking": state.seeking = { ...message, clock: state.seekAsked?.variant === message.variant ? state.seekAsked.clock : null }; break;
    case "room_created": state.room = message.code; break;
    case "game_state": onGameState(message); break;
    case "game_paused": {
      // The site lost a part it needs for a moment: the next `game_state` says it resumed.
      const game = state.games.get(message.game);
      if (!game) return;
      game.note = "Paused: the site is reconnecting. The game resumes in a moment.";
      if (state.view !== "game" || state.current !== message.game) return;
      announce(game.note);
      break;
    }
    case "arena": arenaFrame(state, message); break;
    case "arena_joined": {
      const said = arenaJoined(state, message);
      if (said) announce(said);
      break;
    }
    case "profile": if (!profileMessage(message)) return; break;
    case "history": if (!profileMessage(message) || message.player === state.player) state.history = message.games; break;
    case "game_record":
      state.replay = { record: message, ply: message.moves.length, verdicts: null, analysis: null };
      // The engine's verdicts come from the server (the page has no engine): finished games only.
      if (message.result) net.send({ type: "analyse_game", game: message.game });
      if (state.view === "replay" && state.current === message.game) break;
      show("replay", message.game);
      break;
    case "renamed": renamed(message.name); break;
    case "registered": case "session_list": accountMessage(message, accountActions); showName(account.username ?? nameInput.value); break;
    case "game_analysis":
      if (state.replay?.record.game !== message.game) return;
      state.replay.verdicts = message.verdicts;
      state.replay.analysis = { moves: message.moves ?? [], complete: message.complete };
      break;
    case "leaderboard": state.leaderboard = message.players; break;
    case "league_table":
      state.leagueAsks.delete(message.id);
      state.leagues.set(message.variant, message);
      if (state.view !== "league" && state.view !== "lobby") return;
      break;
    case "game_list":
      state.browse.games = message.games;
      state.browse.next = message.next;
      state.browse.loading = false;
      break;
    case "moderation_list": listed(message); break;
    case "ok": {
      // A mute, block or report done: said, and shown.
      const said = answered(message.id);
      if (said) say(said);
      else if (!accountMessage(message, accountActions)) return;
      break;
    }
    case "pong": return;
    default: if (!applyUpdate(state, message, announce)) return;
  }
  // The lobby is followed only while shown; a snapshot or update that arrives as the player
  // leaves it changes nothing on screen.
  if (message.type.startsWith("lobby") && state.view !== "lobby") return;
  render();
}

/** An error: said, and where it ends a wait for a linked game or replay, back to the lobby. */
function onError(/** @type {any} */ message) {
  refused(message.id);
  const league = state.leagueAsks.get(message.id);
  if (league !== undefined) {
    // No league on that variant (no war games there): said by the league view, quietly.
    state.leagueAsks.delete(message.id);
    state.leagues.set(league, null);
    if (state.leagueFollowed === league) state.leagueFollowed = null;
    render();
    return;
  }
  const line = state.chatSent.get(message.id);
  state.chatSent.delete(message.id);
  if (line && ["no_such_game", "game_over", "not_a_player"].includes(message.code) && state.view === "game") {
    // The game ended as the line went (a war game rolling over): it goes to the one shown now,
    // or to the next war game once it is shown.
    const now = state.current !== null ? state.games.get(state.current) : null;
    if (now && now.game !== line.game && !now.result) {
      state.chatSent.set(net.send({ type: "chat", game: now.game, text: line.text }), { game: now.game, text: line.text });
      return;
    }
    // Or the page has moved on to the next war game and its state has not come yet.
    const coming = !now && state.current !== null && state.listed.get(state.current)?.kind === "war";
    if ((now?.kind === "war" && !now.you) || coming) {
      state.unsentChat.push(line.text);
      return;
    }
  }
  if (account.waiting.get(message.id) === "logout") net.loggedOut = false;
  if (accountMessage(message, accountActions)) return;
  if (state.renaming && message.id === state.renaming.id) {
    // The name was refused: the one the server keeps stays.
    state.renaming = null;
    nameInput.value = storedName();
  }
  if (message.code === "no_such_room") {
    state.room = null;
    if (state.joining) {
      state.joining = false;
      history.replaceState(null, "", location.pathname);
      say("That invite has expired: its room has closed, or its game has already started.", `${message.code}: ${message.message}`);
      return;
    }
  }
  if (message.code === "no_such_game" && state.current !== null) {
    // A war game that ended before its watch arrived: on to the next one, as on TV.
    // The lobby may have dropped the game's entry since it was clicked: the entry as it was then.
    const listed = state.listed.get(state.current) ?? (state.opened?.game === state.current ? state.opened : undefined);
    if (state.view === "game" && !state.games.has(state.current) && listed?.kind === "war") {
      state.warGone = { variant: listed.variant, game: listed.game };
      carryOn(listed.variant, listed.game);
      return;
    }
    // A linked game that has ended is still there to replay.
    if (state.view === "game" && !state.games.has(state.current)) {
      history.replaceState(null, "", `#replay=${state.current}`);
      state.view = "replay";
      net.send({ type: "game_record", game: state.current });
      return;
    }
    if (state.view === "replay" && state.replay?.record.game !== state.current) {
      history.replaceState(null, "", location.pathname);
      show("lobby", null);
      say(`There is no game #${state.current} to show.`);
      return;
    }
  }
  say(errorWords(message.code), `${message.code}: ${message.message}`);
}

/** A game's whole state: shown if it is ours or asked for. */
function onGameState(/** @type {any} */ message) {
  const held = state.games.get(message.game);
  message.you ??= held?.you;
  message.receivedAt = performance.now();
  // A waiting rematch offer is the banner's; the away players' times count down from now.
  if (message.offer?.offer === "rematch") {
    message.rematchBy = message.offer.by;
    message.offer = null;
  }
  message.away = Object.fromEntries((message.away ?? []).map((/** @type {any} */ away) => [away.mark, { ...away, at: message.receivedAt }]));
  if (!held && !message.you && message.kind === "war" && state.current === message.game) {
    message.chat = [...state.carried ?? [], ...message.chat];
    state.carried = null;
    for (const text of state.unsentChat.splice(0)) state.chatSent.set(net.send({ type: "chat", game: message.game, text }), { game: message.game, text });
  }
  state.games.set(message.game, message);
  arenaGameState(state, message);
  state.seeking = null;
  state.room = null;
  const wanted = state.view === "game" && state.current === message.game;
  if (wanted || (message.you && !message.result) || (state.view === "lobby" && state.current === message.game)) {
    if (state.joining) {
      state.joining = false;
      history.replaceState(null, "", `#game=${message.game}`);
    }
    show("game", message.game);
    if (!wanted && message.you) {
      announce(`Game #${message.game} started, you play ${message.you.toUpperCase()}. ${message.to_move === message.you ? "Your move." : ""}`);
      if (message.moves.length === 0 && !message.rematch_of) chime("match");
    }
  }
}

// ——— Addresses ———

/**
 * Shows `view` (of the game or replay `current`); leaving a watched game stops watching it.
 * @param {"lobby" | "game" | "history" | "replay" | "leaderboard" | "browse" | "account" | "profile" | "league"} view
 * @param {number | null} current
 */
function show(view, current) {
  const before = state.view === "game" && state.current !== null ? state.games.get(state.current) : null;
  if (before && (view !== "game" || current !== before.game) && !before.you && !before.result) {
    net.send({ type: "unwatch", game: before.game });
    state.games.delete(before.game);
  }
  state.view = view;
  state.current = current;
  state.opened = view === "game" && current !== null ? state.listed.get(current) ?? null : null;
  state.awaitingWar = false;
  state.warGone = null;
}

/** Goes where the address says: the lobby, a game, a replay, the history; joins a linked room. */
function followAddress() {
  if (state.player === null || state.followed === location.href) return;
  state.followed = location.href;
  const link = new URLSearchParams(location.hash.slice(1));
  const room = link.get("room");
  const game = Number(link.get("game"));
  const replay = Number(link.get("replay"));
  const player = Number(link.get("profile"));
  if (room) {
    state.joining = true;
    show("lobby", null);
    net.send({ type: "join_room", code: room });
  } else if (game) {
    if (!(state.view === "game" && state.current === game)) {
      show("game", game);
      if (!state.games.has(game)) net.send({ type: "watch", game, ...(link.get("code") ? { code: link.get("code") } : {}) });
    }
  } else if (replay) {
    show("replay", replay);
    if (state.replay?.record.game !== replay) net.send({ type: "game_record", game: replay });
  } else if (player) {
    show("profile", player);
    openProfile(player, net.send.bind(net));
  } else if (link.has("games")) {
    browse(link.get("games") ?? "");
  } else if (link.get("leaderboard")) {
    state.recordsVariant = String(link.get("leaderboard"));
    show("leaderboard", null);
    net.send({ type: "leaderboard", variant: state.recordsVariant });
  } else if (link.get("league")) {
    state.leagueVariant = String(link.get("league"));
    show("league", null);
  } else if (location.hash === "#history") {
    show("history", null);
    net.send({ type: "history", limit: 100 });
  } else if (location.hash === "#account") {
    show("account", null);
    listSessions(accountActions);
  } else {
    show("lobby", null);
  }
  render();
}

/** Shows every live game of `variant`, from the first page. */
function browse(/** @type {string} */ variant) {
  state.browse.variant = variant;
  state.browse.cursors = [];
  state.browse.after = undefined;
  show("browse", null);
  listGames();
}

/** Asks for the page of live games the browse view is at. */
function listGames() {
  const b = state.browse;
  b.loading = true;
  b.games = [];
  net.send({ type: "list_games", limit: 20, ...(b.variant ? { variant: b.variant } : {}), ...(b.after !== undefined ? { after: b.after } : {}) });
}

/** What the page's views may do. */
const actions = {
  /** Sends `request`; its id (-1 for a move held back while offline). */
  send: (/** @type {any} */ request) => {
    if (!state.online && request.type === "move") {
      state.unsent = true;
      render();
      return -1;
    }
    const id = net.send(request);
    if (request.type === "chat") {
      state.chatSent.set(id, { game: request.game, text: request.text });
      // A watcher's line goes to the spectators' chat: shown there.
      if (!state.games.get(request.game)?.you) state.chatTab = "spectators";
    }
    return id;
  },
  get player() { return state.player; },
  get online() { return state.online; },
  get unsent() { return state.unsent; },
  lobby: () => { show("lobby", null); render(); },
  backToArena: () => {
    state.arenaGame = null;
    show("lobby", null);
    render();
    // The standings sit below the ways to play: brought into view (on a phone, screens below),
    // and the focus with them, where the board's was.
    const standings = document.getElementById("arena-standings");
    standings?.focus({ preventScroll: true });
    standings?.scrollIntoView({ block: "start" });
    announce(`Back to the standings of ${state.arena?.info.name ?? "the arena"}.`);
  },
  analyse: (/** @type {number} */ game) => net.send({ type: "game_record", game }),
  /** Another game like this one against someone (or something) else. */
  newOpponent: (/** @type {any} */ game) => {
    const ai = game.kind === "ai" ? game[game.you === "x" ? "o" : "x"] : null;
    /** @type {any} */
    const request = ai
      ? { type: "play_ai", variant: game.variant, level: ai.level, side: game.you }
      : { type: "seek", variant: game.variant, rated: Boolean(game.rated) };
    if (game.clock) request.clock = game.clock;
    if (!ai) state.seekAsked = { variant: game.variant, clock: game.clock ?? null };
    net.send(request);
    show("lobby", null);
    render();
  },
  get chatTab() { return state.chatTab; },
  setChatTab: (/** @type {"players" | "spectators"} */ tab) => { state.chatTab = tab; render(); },
  history: () => { show("history", null); net.send({ type: "history", limit: 100 }); render(); },
  /** The leaderboard of `variant`, in a view of its own. */
  leaderboard: (/** @type {string} */ variant) => {
    state.recordsVariant = variant;
    show("leaderboard", null);
    net.send({ type: "leaderboard", variant });
    render();
  },
  /** The engines' league's table of `variant`, in a view of its own, followed while shown. */
  league: (/** @type {string} */ variant) => {
    state.leagueVariant = variant;
    show("league", null);
    render();
  },
  replay: (/** @type {number} */ game) => net.send({ type: "game_record", game }),
  render: () => render(),
  /** All live games of `variant` ("" for every variant), from the first page. */
  browse: (/** @type {string} */ variant) => { browse(variant); render(); },
  /** The next page (1) or the one before (-1). */
  page: (/** @type {number} */ step) => {
    const b = state.browse;
    if (step > 0 && b.next !== undefined) {
      b.cursors.push(b.after);
      b.after = b.next;
    } else if (step < 0 && b.cursors.length) {
      b.after = b.cursors.pop();
    } else {
      return;
    }
    listGames();
    render();
  },
  /** Goes back to one of the player's own live games. */
  resume: (/** @type {number} */ game) => { show("game", game); render(); },
  /** Watches a game from the lobby. */
  watch: (/** @type {number} */ game) => { show("game", game); net.send({ type: "watch", game }); render(); },
  say,
};

/** What the account view may do. */
const accountActions = accountActionsFor(net, () => render(), () => state.player);

// ——— Drawing ———

/** The chat line being typed in the game shown, and its input. @type {{node: HTMLInputElement, value: string, focused: boolean} | null} */
let draft = null;

/** The view of the moment, morphed into the page; focus lost with a removed element goes to the board. */
function render() {
  const hadFocus = document.activeElement !== document.body && document.activeElement !== null;
  const view = state.view === "game" && state.current !== null && state.games.has(state.current)
    ? gameView(state.games.get(state.current), actions)
    : state.view === "game" ? waiting(`Looking for game #${state.current}…`)
    : state.view === "history" ? historyView(state, actions)
    : state.view === "leaderboard" ? leaderboardView(state, actions)
    : state.view === "league" ? leagueView(state, actions)
    : state.view === "browse" ? browseView(state.browse, actions)
    : state.view === "replay" && state.replay && state.replay.record.game === state.current ? replayView(state.replay, actions)
    : state.view === "replay" ? waiting(`Fetching the record of game #${state.current}…`)
    : state.view === "account" ? accountView(accountActions)
    : state.view === "profile" ? profileView(actions)
    : lobbyView(state, actions);
  const next = document.createElement("main");
  next.append(view);
  placeNotice(next, addressOf(state));
  // What a watcher was typing stays when the game shown changes (a war game rolling over, with
  // a moment of "Looking for game…" between): kept while the view is a game's.
  const typing = /** @type {HTMLInputElement | null} */ (document.getElementById("chat-input"));
  if (typing) draft = { node: typing, value: typing.value, focused: document.activeElement === typing };
  if (state.view !== "game") draft = null;
  morph(main, next);
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById("chat-input"));
  if (draft && input && input !== draft.node && !input.value) {
    input.value = draft.value;
    if (draft.focused) input.focus();
  }
  const address = addressOf(state);
  if (state.followed !== null && !state.joining && location.hash.replace(/^#$/, "") !== address) {
    history.pushState(null, "", address || location.pathname);
    state.followed = location.href;
  }
  followLobby();
  followLeague();
  showAccount();
  for (const link of document.querySelectorAll("header [data-nav]")) {
    if (link.getAttribute("data-nav") === state.view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = title(state);
  if (hadFocus && (document.activeElement === document.body || document.activeElement === null)) {
    const first = /** @type {HTMLElement | null} */ (main.querySelector("[data-autofocus]"));
    if (first) first.focus();
    else if (!focusBoard()) main.focus({ preventScroll: true });
  }
  tick();
}

/** The header's link to the account view: the account's username, or an offer to sign in. */
function showAccount() {
  const text = account.username ?? "Sign up or sign in";
  if (accountLink.textContent !== text) accountLink.textContent = text;
  accountLink.setAttribute("aria-label", `Account: ${text}`);
  accountLink.dataset.account = account.username ? "member" : "guest";
}

function waiting(/** @type {string} */ text) {
  return el("p", { class: "dim", "data-key": "waiting" }, text);
}

/**
 * Follows the lobby only while it is shown (or while a war game's watcher waits for the next):
 * subscribes when it appears, unsubscribes when the player leaves it; the snapshot that answers
 * a subscription replaces everything held.
 */
function followLobby() {
  const want = state.online && (state.view === "lobby" || state.awaitingWar);
  if (want === state.following) return;
  state.following = want;
  if (state.online) net.send({ type: want ? "subscribe_lobby" : "unsubscribe_lobby" });
  document.body.dataset.lobby = want ? "followed" : "not followed";
}

/**
 * Follows the league shown (and no other), and asks once for the table of the AI's variant in
 * the play panel, whose levels' ratings it shows, when the lobby lists a war game of it.
 */
function followLeague() {
  if (!state.online) {
    state.leagueFollowed = null;
    return;
  }
  const want = state.view === "league" ? state.leagueVariant : null;
  if (want !== state.leagueFollowed) {
    if (want) askLeague(want, true);
    else net.send({ type: "unfollow_league" });
    state.leagueFollowed = want;
  }
  if (state.view !== "lobby") return;
  const variant = settings("ai").variant;
  const war = [...state.listed.values()].some((g) => g.kind === "war" && g.variant === variant);
  if (war && !state.leagues.has(variant) && ![...state.leagueAsks.values()].includes(variant)) askLeague(variant, false);
}

/** Asks for `variant`'s league table, following it if `follow`. */
function askLeague(/** @type {string} */ variant, /** @type {boolean} */ follow) {
  state.leagueAsks.set(net.send({ type: "league", variant, ...(follow ? { follow: true } : {}) }), variant);
}

/** How long a finished war game stays on screen before its watcher moves on to the next. */
const NEXT_WAR_MS = 3000;

/** Moves the watcher of a finished war game on to the next war game of its variant, once there is one. */
function nextWar(/** @type {any} */ game) {
  // A war game watched to its end (or already over when the watch began) carries the watcher
  // on to the next one, as on TV.
  if (game.kind !== "war" || game.you || !game.result) return;
  game.nextWarAt ??= performance.now() + NEXT_WAR_MS;
  if (!game.nextWarAt || performance.now() < game.nextWarAt) return;
  if (carryOn(game.variant, game.game)) game.nextWarAt = null;
}

/**
 * Shows the first war game of `variant` after game `after`, once the lobby lists one (following
 * the lobby meanwhile). Says whether it did.
 * @param {string} variant
 * @param {number} after
 */
function carryOn(variant, after) {
  const next = [...state.listed.values()]
    .filter((g) => g.kind === "war" && g.variant === variant && g.game > after)
    .sort((a, b) => a.game - b.game)[0];
  if (!next) {
    // The lobby (not followed while watching) lists the next war game once it starts.
    if (!state.awaitingWar) {
      state.awaitingWar = true;
      followLobby();
    }
    return false;
  }
  const old = state.games.get(after);
  if (old) state.carried = old.chat.filter((/** @type {any} */ line) => !line.mark).slice(-20);
  show("game", next.game);
  net.send({ type: "watch", game: next.game });
  announce(`On to the next war game, #${next.game}.`);
  render();
  return true;
}

/** Ticks the clocks on screen between the server's updates; moves a war game's watcher on. */
function tick() {
  const game = state.current !== null ? state.games.get(state.current) : null;
  if (arenaBackDue(state)) actions.backToArena();
  if (game && state.view === "game") nextWar(game);
  else if (state.warGone && state.view === "game" && state.current === state.warGone.game) carryOn(state.warGone.variant, state.warGone.game);
  if (game && state.view === "game" && awayTick(game, main)) render();
  if (!game || !game.clocks || state.view !== "game") return;
  const elapsed = performance.now() - (game.receivedAt ?? performance.now());
  for (const mark of ["x", "o"]) {
    const node = main.querySelector(`[data-clock="${mark}"]`);
    if (!node) continue;
    let ms = game.clocks[`${mark}_ms`];
    if (game.clocks.running === mark && !game.result) ms = Math.max(0, ms - elapsed);
    node.textContent = clockText(ms);
  }
}

document.addEventListener("keydown", (event) => {
  if (state.view !== "replay" || !state.replay) return;
  if (event.target instanceof HTMLInputElement) return;
  if (stepReplay(state.replay, event.key)) {
    event.preventDefault();
    render();
  }
});

setInterval(tick, 200);
net.connect();
render();
