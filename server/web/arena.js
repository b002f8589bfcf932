// @ts-check
/**
 * Arenas on the page: the lobby's list of arenas running or starting soon, each with its
 * standings to open, and Join, or, for an arena the player is in (as the server tells every tab
 * and every reload: `arena_joined`), "Joined" and Withdraw; the standings of the arena followed
 * (the leaders, your own line, the totals, the best game to watch, and the podium once it has
 * finished); and,
 * while you are in a running arena, the game it pairs you into, which opens by itself and gives
 * way to the standings again a moment after it ends (as lichess does).
 */

import { clockSpec, el } from "./views.js";

/**
 * The lobby's arenas section.
 * @param {any} state the page's state
 * @param {any} actions the page's actions (send, watch)
 */
export function arenaSection(state, actions) {
  const send = actions.send;
  const rows = state.arenas.map((/** @type {any} */ a) => {
    const joined = state.arenasJoined.has(a.arena);
    const open = a.status === "upcoming" || a.status === "running";
    return el("li", { "data-key": `arena-${a.arena}`, "data-arena": String(a.arena), "data-joined": String(joined), class: "arena-item" },
      el("span", { class: "arena-what" }, `${a.name} · ${a.variant} · ${clockSpec(a.clock)} · ${a.status} · ${a.players} ${a.players === 1 ? "player" : "players"}`),
      joined ? el("strong", { class: "joined-mark", "data-joined-mark": String(a.arena) }, check(), "Joined") : null,
      el("span", { class: "arena-actions" },
        el("button", { type: "button", "data-standings": String(a.arena), "aria-label": `Standings of ${a.name}`, onclick: () => send({ type: "arena", arena: a.arena }) }, "Standings"),
        // One button, kept across the change, so that the focus stays on it.
        open ? arenaButton(state, actions, a.arena, a.name, joined, `arena-action-${a.arena}`) : null));
  });
  return el("div", { "data-key": "arenas-section" },
    el("h2", {}, "Arenas"),
    rows.length ? el("ul", { id: "arenas" }, ...rows) : el("p", { class: "dim", id: "arenas-none" }, "No arenas running or starting soon."),
    state.arena ? standings(state, actions) : null);
}

/**
 * Join (or Rejoin) an arena, or Withdraw from it when the player is in it.
 * @param {any} state @param {any} actions @param {number} arena @param {string} name
 * @param {boolean} joined whether the player is in it
 * @param {string} key what keeps the button across redraws
 * @param {string} [id] the button's id
 */
function arenaButton(state, actions, arena, name, joined, key, id) {
  const ask = (/** @type {string} */ type) => {
    state.arenaAsked = arena;
    actions.send({ type, arena });
  };
  if (joined) {
    return el("button", { type: "button", "data-key": key, id: id ? `${id}-withdraw` : false, "data-withdraw-arena": String(arena), "aria-label": `Withdraw from ${name}`, onclick: () => ask("withdraw_arena") }, "Withdraw");
  }
  const back = state.arena?.info.arena === arena && state.arena.me?.withdrawn;
  return el("button", { type: "button", "data-key": key, id: id ? `${id}-join` : false, class: "primary", "data-join-arena": String(arena), "aria-label": `${back ? "Rejoin" : "Join"} ${name}`, onclick: () => ask("join_arena") }, back ? "Rejoin" : "Join");
}

/** The tick before "Joined", for the eye only: a screen reader says the word. */
function check() {
  return el("span", { "aria-hidden": "true" }, "✓ ");
}

/** One line of standings. */
function line(/** @type {any} */ l) {
  const marks = [l.fire ? "on fire" : "", l.playing ? "playing" : "", l.withdrawn ? "withdrawn" : ""].filter(Boolean).join(", ");
  return el("li", { "data-key": `line-${l.player}`, "data-player": String(l.player) },
    `${l.rank}. ${l.name} (${l.rating}) · ${l.score} ${l.score === 1 ? "point" : "points"} · ${l.games} ${l.games === 1 ? "game" : "games"}${marks ? ` · ${marks}` : ""}`);
}

/** The standings of the arena followed. */
function standings(/** @type {any} */ state, /** @type {any} */ actions) {
  const view = state.arena;
  const info = view.info;
  const totals = view.totals;
  const joined = state.arenasJoined.has(info.arena);
  const open = info.status === "upcoming" || info.status === "running";
  return el("section", { id: "arena-standings", tabindex: "-1", "aria-label": `standings of ${info.name}`, "data-key": `standings-${info.arena}` },
    el("h3", {}, `${info.name} · ${info.status}`, joined ? el("strong", { class: "joined-mark" }, " · ", check(), "Joined") : null),
    el("p", { class: "dim", id: "arena-totals" }, `${totals.players} ${totals.players === 1 ? "player" : "players"} · ${totals.games} ${totals.games === 1 ? "game" : "games"} counted · ${totals.playing} in play`),
    view.podium?.length ? el("ol", { id: "arena-podium", "aria-label": "podium" }, ...view.podium.map(line)) : null,
    el("ol", { id: "arena-top", class: "standings" }, ...view.top.map(line)),
    view.me && !view.top.some((/** @type {any} */ l) => l.player === view.me.player) ? el("ul", { id: "arena-me" }, line(view.me)) : null,
    el("div", { class: "row" },
      view.best_game ? el("button", { type: "button", id: "arena-best-game", onclick: () => actions.watch(view.best_game) }, "Watch the best game") : null,
      open ? arenaButton(state, actions, info.arena, info.name, joined, "standings-action", "arena") : null));
}

/**
 * An `arena_joined` frame: whether the player is in an arena, from this tab, another, or the
 * server after `welcome`; what to tell a screen reader when this tab asked for it.
 * @param {any} state the page's state
 * @param {any} message the frame
 * @returns {string | null}
 */
export function arenaJoined(state, message) {
  if (message.joined) state.arenasJoined.add(message.arena);
  else state.arenasJoined.delete(message.arena);
  if (state.arenaAsked !== message.arena) return null;
  state.arenaAsked = null;
  const name = state.arenas.find((/** @type {any} */ a) => a.arena === message.arena)?.name
    ?? (state.arena?.info.arena === message.arena ? state.arena.info.name : "the arena");
  return message.joined ? `You have joined ${name}.` : `You have withdrawn from ${name}.`;
}

/** How long a finished arena game stays on screen before the standings come back. */
export const BACK_AFTER_MS = 3000;

/** Whether the page's player has joined the arena followed and plays on in it. */
function playingIn(/** @type {any} */ state) {
  const view = state.arena;
  return Boolean(view?.me && !view.me.withdrawn && ["running", "ending"].includes(view.info.status));
}

/**
 * An `arena` frame: the standings to show, and the game it names as ours (`my_game`).
 * @param {any} state the page's state
 * @param {any} message the frame
 */
export function arenaFrame(state, message) {
  state.arena = message;
  // The receiver's own line says whether the player is in it, as `arena_joined` does.
  if (message.me && !message.me.withdrawn) state.arenasJoined.add(message.info.arena);
  else state.arenasJoined.delete(message.info.arena);
  if (!message.my_game) return;
  state.arenaGame = message.my_game;
  const game = state.games.get(message.my_game);
  if (game) game.arena = message.info.name;
}

/**
 * A `game_state` (already held in `state.games`): a new game of ours while we are in a running
 * arena is its pairing (the frame naming it may come only after a quick end).
 * @param {any} state the page's state
 * @param {any} message the game's state
 */
export function arenaGameState(state, message) {
  const fresh = message.you && !message.result && message.moves.length === 0 && !message.rematch_of;
  if (state.arena?.my_game === message.game || (fresh && playingIn(state))) state.arenaGame = message.game;
  if (state.arenaGame === message.game) message.arena = state.arena?.info.name ?? "the arena";
}

/**
 * A tick: whether the arena's game on screen has ended and had its moment on the finished board,
 * so that the standings come back.
 * @param {any} state the page's state
 */
export function arenaBackDue(state) {
  const game = state.view === "game" && state.current === state.arenaGame ? state.games.get(state.current) : null;
  if (!game?.result) {
    state.arenaBackAt = null;
    return false;
  }
  state.arenaBackAt ??= performance.now() + BACK_AFTER_MS;
  return performance.now() >= state.arenaBackAt;
}
