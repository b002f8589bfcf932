// @ts-check
/**
 * The lobby on screen: the forms to play (quick match, the AI, a room, an invite code), the open
 * seeks and rooms, the live and war games, the leaderboard. Every row is keyed (by seek id, room
 * code, game id), so that a change in the lobby touches only its own row.
 */

import { playerMenu } from "./moderation.js";
import { CLOCKS, chosen, clockSpec, el, seatText, select } from "./views.js";

/**
 * @param {any} state the page's state
 * @param {any} actions the page's actions (send, render, watch, history, say)
 */
export function lobbyView(state, actions) {
  const send = actions.send;
  const variants = [["classic", "classic"], ["four", "four"], ["cube", "cube"], ["qubic", "qubic"]];
  const play = el("section", { class: "panel", "aria-label": "play" },
    el("h2", {}, "Play"),
    select("Variant", /** @type {[string, any][]} */ (variants), "variant"),
    select("Clock", /** @type {[string, any][]} */ (CLOCKS), "clock"),
    el("label", { class: "check" }, el("input", { type: "checkbox", id: "rated" }), " rated"),
    el("div", { class: "row" },
      el("button", { id: "quick-match", type: "button", onclick: () => send(withClock({ type: "seek", variant: chosen("variant"), rated: checked("rated") })) }, "Quick match"),
      state.seeking ? el("span", { id: "seeking" }, "Looking for an opponent… ",
        el("button", { type: "button", id: "cancel-seek", onclick: () => { send({ type: "cancel_seek" }); state.seeking = null; actions.render(); } }, "Cancel")) : null),
    el("div", { class: "row" },
      select("AI level", [["easy", "easy"], ["medium", "medium"], ["hard", "hard"], ["perfect", "perfect"], ["random", "random"]], "level"),
      select("Side", [["X (first)", "x"], ["O", "o"], ["random", "random"]], "side"),
      el("button", { id: "play-ai", type: "button", onclick: () => send(withClock({ type: "play_ai", variant: chosen("variant"), level: chosen("level"), side: chosen("side") })) }, "Play the AI")),
    el("div", { class: "row" },
      el("label", { class: "check" }, el("input", { type: "checkbox", id: "private", checked: true }), " private"),
      el("button", { id: "create-room", type: "button", onclick: () => send(withClock({ type: "create_room", variant: chosen("variant"), private: checked("private"), rated: checked("rated") })) }, "Create a room")),
    state.room ? roomBox(state, actions) : null,
    el("div", { class: "row" },
      el("label", {}, "Invite code ", el("input", { id: "code", autocomplete: "off", maxlength: "16" })),
      el("button", { id: "join", type: "button", onclick: () => joinRoom(send) }, "Join")),
    el("div", { class: "row" },
      el("button", { id: "history", type: "button", onclick: () => actions.history() }, "My games"),
      el("button", { id: "leaderboard", type: "button", onclick: () => actions.leaderboard(chosen("variant")) }, "Leaderboard")));
  const seeks = [...state.seeks.values()].map((seek) => el("li", { "data-key": `seek-${seek.seek}` },
    `${seek.name}#${seek.player} (${seek.rating}) · ${seek.variant} · ${clockSpec(seek.clock)}${seek.rated ? " · rated" : ""} `,
    playerMenu(seek, `seek-${seek.seek}`, null, actions), " ",
    seek.player === state.player ? el("em", {}, "yours")
      : el("button", { type: "button", "data-seek": String(seek.seek), onclick: () => send({ type: "accept_seek", seek: seek.seek }) }, "Play")));
  const rooms = [...state.rooms.values()].map((room) => el("li", { "data-key": `room-${room.code}` },
    `${room.code} · ${room.variant} · ${clockSpec(room.clock)} · ${room.host} `,
    playerMenu({ player: room.player, name: room.host }, `room-${room.code}`, null, actions), " ",
    el("button", { type: "button", "data-join": room.code, onclick: () => send({ type: "join_room", code: room.code }) }, "Join")));
  const listed = [...state.listed.values()].sort((a, b) => a.game - b.game);
  const gameRow = (/** @type {any} */ game) => gameItem(game, actions);
  return el("div", { class: "lobby", "data-key": "lobby" },
    play,
    el("section", { class: "panel", "aria-label": "lobby" },
      totalsLine(state.totals),
      el("h2", {}, "Open seeks"), list(seeks, "nobody is seeking", "seeks"), more(seeks.length, state.seeksTotal, "seeks-more"),
      el("h2", {}, "Open rooms"), list(rooms, "no open rooms", "rooms"), more(rooms.length, state.roomsTotal, "rooms-more"),
      el("h2", {}, "Featured games"), list(listed.filter((g) => g.kind !== "war").map(gameRow), "no live games", "live-games"),
      el("h2", {}, "War games"), el("ul", { id: "war-games" }, ...listed.filter((g) => g.kind === "war").map(gameRow)),
      el("button", { id: "browse-games", type: "button", onclick: () => actions.browse("") }, "Browse all live games")));
}

/**
 * Applies a `lobby_update` to what the page holds: removals first, then the entries that replace
 * or join those held, the totals when they changed.
 * @param {any} state the page's state
 * @param {any} update the message
 */
export function applyLobbyUpdate(state, update) {
  for (const seek of update.seeks_removed ?? []) state.seeks.delete(seek);
  for (const code of update.rooms_removed ?? []) state.rooms.delete(code);
  for (const game of update.games_removed ?? []) state.listed.delete(game);
  for (const seek of update.seeks ?? []) state.seeks.set(seek.seek, seek);
  for (const room of update.rooms ?? []) state.rooms.set(room.code, room);
  for (const game of update.games ?? []) state.listed.set(game.game, game);
  if (update.seeks_total !== undefined) state.seeksTotal = update.seeks_total;
  if (update.rooms_total !== undefined) state.roomsTotal = update.rooms_total;
  if (update.totals) state.totals = update.totals;
}

/** "and 12 more" under a list that holds `shown` of `total`. */
function more(/** @type {number} */ shown, /** @type {number} */ total, /** @type {string} */ id) {
  return total > shown ? el("p", { class: "dim", id }, `and ${total - shown} more`) : null;
}

/** The lobby's totals: the connections open to the site, the games in play. */
function totalsLine(/** @type {any} */ totals) {
  if (!totals) return null;
  return el("p", { id: "totals", class: "dim" }, `${totals.online} online · ${totals.games} ${totals.games === 1 ? "game" : "games"} in play`);
}

/**
 * A live game as a row: a miniature of its board when the lobby sends the board, who plays, the
 * moves and watchers, and a button to watch it.
 * @param {any} game
 * @param {any} actions
 */
function gameItem(game, actions) {
  return el("li", { "data-key": `game-${game.game}`, "data-game": String(game.game), class: "game-item" },
    game.board ? miniature(game.variant, game.board) : null,
    `#${game.game} ${game.variant}: ${seatText(game.x)} vs ${seatText(game.o)} · ${game.moves} moves · ${game.watchers} watching `,
    playerMenu(game.x, `listed-${game.game}-x`, game.game, actions), " ",
    playerMenu(game.o, `listed-${game.game}-o`, game.game, actions), " ",
    el("button", { type: "button", "aria-label": `Watch game ${game.game}`, onclick: () => actions.watch(game.game) }, "Watch"));
}

/** A small picture of a board (the cubes' layers side by side), not for pressing. */
function miniature(/** @type {string} */ variant, /** @type {string} */ board) {
  const side = variant === "four" || variant === "qubic" ? 4 : 3;
  const layers = variant === "cube" || variant === "qubic" ? side : 1;
  const picture = el("div", { class: `mini ${variant}`, role: "img", "aria-label": `${variant} board`, "data-board": board });
  for (let layer = 0; layer < layers; layer++) {
    const grid = el("div", { class: "mini-grid" });
    for (let i = 0; i < side * side; i++) {
      const mark = board[layer * side * side + i];
      grid.append(el("span", { class: "mini-cell", "data-mark": mark === "X" || mark === "O" ? mark : false }, mark === "X" || mark === "O" ? mark : ""));
    }
    picture.append(grid);
  }
  return picture;
}

/**
 * Every live game, a page at a time (`list_games`), with a variant filter.
 * @param {any} browse `{variant, cursors, games, next}`: the filter, the cursors of the pages
 *   before, the page held, the cursor of the page after
 * @param {any} actions the page's actions (browse, page, watch, lobby)
 */
export function browseView(browse, actions) {
  const variants = [["all variants", ""], ["classic", "classic"], ["four", "four"], ["cube", "cube"], ["qubic", "qubic"]];
  const filter = el("select", { id: "browse-variant", onchange: (event) => actions.browse(/** @type {HTMLSelectElement} */ (event.target).value) },
    ...variants.map(([text, value]) => el("option", { value, selected: value === browse.variant }, text)));
  return el("div", { class: "panel", "data-key": "browse" },
    el("h2", {}, "All live games"),
    el("label", {}, "Variant ", filter),
    browse.games.length ? el("ul", { id: "browse-list" }, ...browse.games.map((/** @type {any} */ g) => gameItem(g, actions)))
      : el("p", { class: "dim" }, browse.loading ? "Loading…" : "No live games."),
    el("div", { class: "row" },
      el("button", { id: "browse-previous", type: "button", disabled: browse.cursors.length === 0, onclick: () => actions.page(-1) }, "Previous page"),
      el("button", { id: "browse-next", type: "button", disabled: browse.next === undefined, onclick: () => actions.page(1) }, "Next page"),
      el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby")));
}

/** A request with the clock chosen, if any. */
function withClock(/** @type {any} */ request) {
  const clock = chosen("clock");
  if (clock) request.clock = clock;
  return request;
}

function checked(/** @type {string} */ id) {
  return Boolean(/** @type {HTMLInputElement | null} */ (document.getElementById(id))?.checked);
}

function list(/** @type {HTMLElement[]} */ items, /** @type {string} */ empty, /** @type {string} */ id) {
  return items.length ? el("ul", { id }, ...items) : el("p", { class: "dim", id: `${id}-none` }, empty);
}

function roomBox(/** @type {any} */ state, /** @type {any} */ actions) {
  const code = state.room;
  const link = `${location.origin}/#room=${encodeURIComponent(code)}`;
  return el("div", { class: "room", id: "room-box" },
    el("p", {}, "Your room is open. Invite code: ", el("strong", { class: "code", id: "invite-code" }, code)),
    el("p", {}, "Send them this link: ", el("a", { id: "invite-link", href: link }, link), " ",
      el("button", { type: "button", id: "copy-link", onclick: () => copy(link, actions.say) }, "Copy")),
    el("button", { type: "button", id: "close-room", onclick: () => { actions.send({ type: "close_room", code }); state.room = null; actions.render(); } }, "Close the room"));
}

/**
 * Copies `link`: through the clipboard where the page may use it (a secure context), else the
 * link is selected on the page and the browser's own copy is tried; either way the player is
 * told what happened.
 * @param {string} link
 * @param {(text: string) => void} say
 */
async function copy(link, say) {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard here");
    await navigator.clipboard.writeText(link);
    say("Link copied: send it to the person you want to play.");
  } catch {
    const shown = document.getElementById("invite-link");
    if (shown) getSelection()?.selectAllChildren(shown);
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
    say(copied ? "Link copied: send it to the person you want to play."
      : "The link is selected: copy it (Ctrl+C, or press and hold) and send it.");
  }
}

function joinRoom(/** @type {(request: any) => void} */ send) {
  const code = /** @type {HTMLInputElement} */ (document.getElementById("code")).value.trim();
  if (code) send({ type: "join_room", code });
}
