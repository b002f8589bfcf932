// @ts-check
/**
 * Arenas on the page: the lobby's list of arenas running or starting soon, each with its
 * standings to open and a Join for accounts, and the standings of the arena followed (the leaders,
 * your own line, the totals, the best game to watch, and the podium once it has finished); and,
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
  const rows = state.arenas.map((/** @type {any} */ a) => el("li", { "data-key": `arena-${a.arena}`, "data-arena": String(a.arena) },
    `${a.name} · ${a.variant} · ${clockSpec(a.clock)} · ${a.status} · ${a.players} ${a.players === 1 ? "player" : "players"} `,
    el("button", { type: "button", "data-standings": String(a.arena), onclick: () => send({ type: "arena", arena: a.arena }) }, "Standings"), " ",
    el("button", { type: "button", "data-join-arena": String(a.arena), onclick: () => send({ type: "join_arena", arena: a.arena }) }, "Join")));
  return el("div", { "data-key": "arenas-section" },
    el("h2", {}, "Arenas"),
    rows.length ? el("ul", { id: "arenas" }, ...rows) : el("p", { class: "dim", id: "arenas-none" }, "No arenas running or starting soon."),
    state.arena ? standings(state.arena, actions) : null);
}

/** One line of standings. */
function line(/** @type {any} */ l) {
  const marks = [l.fire ? "on fire" : "", l.playing ? "playing" : "", l.withdrawn ? "withdrawn" : ""].filter(Boolean).join(", ");
  return el("li", { "data-key": `line-${l.player}`, "data-player": String(l.player) },
    `${l.rank}. ${l.name} (${l.rating}) · ${l.score} ${l.score === 1 ? "point" : "points"} · ${l.games} ${l.games === 1 ? "game" : "games"}${marks ? ` · ${marks}` : ""}`);
}

/** The standings of the arena followed. */
function standings(/** @type {any} */ view, /** @type {any} */ actions) {
  const info = view.info;
  const totals = view.totals;
  return el("section", { id: "arena-standings", "aria-label": `standings of ${info.name}`, "data-key": `standings-${info.arena}` },
    el("h3", {}, `${info.name} · ${info.status}`),
    el("p", { class: "dim", id: "arena-totals" }, `${totals.players} ${totals.players === 1 ? "player" : "players"} · ${totals.games} ${totals.games === 1 ? "game" : "games"} counted · ${totals.playing} in play`),
    view.podium?.length ? el("ol", { id: "arena-podium", "aria-label": "podium" }, ...view.podium.map(line)) : null,
    el("ol", { id: "arena-top", class: "standings" }, ...view.top.map(line)),
    view.me && !view.top.some((/** @type {any} */ l) => l.player === view.me.player) ? el("ul", { id: "arena-me" }, line(view.me)) : null,
    view.best_game ? el("button", { type: "button", id: "arena-best-game", onclick: () => actions.watch(view.best_game) }, "Watch the best game") : null,
    view.me && !view.me.withdrawn && info.status !== "finished"
      ? el("button", { type: "button", id: "arena-withdraw", onclick: () => actions.send({ type: "withdraw_arena", arena: info.arena }) }, "Withdraw")
      : null);
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
