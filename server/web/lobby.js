// @ts-check
/**
 * The lobby on screen: the ways to play (`play.js`), the player's own live games, the featured
 * and war games as miniatures to click, the open seeks and rooms, and how to win each variant.
 * Every row is keyed (by seek id, room code, game id), so that a change in the lobby touches
 * only its own row.
 */

import { arenaSection } from "./arena.js";
import { playerMenu } from "./moderation.js";
import { playPanel } from "./play.js";
import { clockSpec, el, nameLink, plural } from "./views.js";

/** How to win each variant, in a paragraph. */
const HOW_TO_WIN = /** @type {[string, string][]} */ ([
  ["classic", "A 3×3 board. Take turns marking a cell, X first; three of your marks in a row, a column or a diagonal win. With best play on both sides it is a draw."],
  ["four", "A 4×4 board: four in a row, a column or a diagonal win (ten lines in all). Harder to see, and still a draw with best play."],
  ["cube", "Three 3×3 layers stacked into a cube, shown side by side. A line is three cells in a straight line anywhere in the cube: along a row or a column of one layer, straight down through the layers (1a1, 2a1, 3a1), or on a diagonal across layers (1a1, 2b2, 3c3) — 49 lines in all. X wins with best play."],
  ["qubic", "Four 4×4 layers stacked into a cube: four cells in a straight line win, in a layer, down through the layers, or diagonally through them (1a1, 2b2, 3c3, 4d4) — 76 lines. X wins with best play, but only a deep search finds how."],
]);

/**
 * @param {any} state the page's state
 * @param {any} actions the page's actions (send, render, watch, resume, history, say)
 */
export function lobbyView(state, actions) {
  const send = actions.send;
  const seeks = [...state.seeks.values()].map((seek) => el("li", { "data-key": `seek-${seek.seek}` },
    nameLink(seek), ` ${seek.rating} · ${seek.variant} · ${clockSpec(seek.clock)}${seek.rated ? " · rated" : ""} `,
    playerMenu(seek, `seek-${seek.seek}`, null, actions), " ",
    seek.player === state.player ? el("em", {}, "yours")
      : el("button", { type: "button", "data-seek": String(seek.seek), onclick: () => send({ type: "accept_seek", seek: seek.seek }) }, "Play")));
  const rooms = [...state.rooms.values()].map((room) => el("li", { "data-key": `room-${room.code}` },
    `${room.code} · ${room.variant} · ${clockSpec(room.clock)} · `, nameLink(room), " ",
    playerMenu({ player: room.player, name: room.host }, `room-${room.code}`, null, actions), " ",
    el("button", { type: "button", "data-join": room.code, onclick: () => send({ type: "join_room", code: room.code }) }, "Join")));
  const mine = [...state.games.values()].filter((g) => g.you && !g.result).sort((a, b) => a.game - b.game);
  const listed = [...state.listed.values()].filter((g) => !mine.some((m) => m.game === g.game)).sort((a, b) => a.game - b.game);
  const gameRow = (/** @type {any} */ game) => gameItem(game, actions);
  const featured = listed.filter((g) => g.kind !== "war");
  const wars = listed.filter((g) => g.kind === "war");
  return el("div", { class: "lobby", "data-key": "lobby" },
    playPanel(state, actions, roomBox),
    el("section", { class: "panel", "aria-label": "lobby", "data-feedback": "lobby" },
      totalsLine(state.totals),
      mine.length ? el("h2", {}, "Your games") : null,
      mine.length ? el("ul", { id: "your-games", class: "game-list" }, ...mine.map((g) => yourGame(g, actions))) : null,
      el("h2", {}, "Featured games"),
      wars.length ? el("ul", { id: "war-games", class: "game-list", "aria-label": "war games: the AI against itself" }, ...wars.map(gameRow)) : null,
      featured.length ? el("ul", { id: "live-games", class: "game-list" }, ...featured.map(gameRow)) : null,
      wars.length || featured.length ? null : el("p", { class: "dim", id: "live-games-none" }, "No live games just now."),
      el("button", { id: "browse-games", type: "button", onclick: () => actions.browse("") }, "Browse all live games"),
      wars.length ? el("button", { id: "league-link", type: "button", onclick: () => actions.league(wars[0].variant) }, "The engines' league table") : null,
      arenaSection(state, actions),
      el("h2", {}, "Open seeks"), list(seeks, "Nobody is seeking just now.", "seeks"), more(seeks.length, state.seeksTotal, "seeks-more"),
      el("h2", {}, "Open rooms"), list(rooms, "No open rooms just now.", "rooms"), more(rooms.length, state.roomsTotal, "rooms-more"),
      el("h2", {}, "How to win"),
      el("dl", { class: "how", id: "how-to-win" }, ...HOW_TO_WIN.flatMap(([variant, text]) => [el("dt", {}, variant), el("dd", { "data-variant": variant }, text)]))));
}

/** One of the player's own live games: the opponent, whose move, and Resume. */
function yourGame(/** @type {any} */ game, /** @type {any} */ actions) {
  const other = game[game.you === "x" ? "o" : "x"];
  return el("li", { "data-key": `yours-${game.game}`, "data-game": String(game.game), class: "game-item" },
    miniature(game.variant, game.board, () => actions.resume(game.game)),
    el("span", { class: "who" }, `#${game.game} ${game.variant} against `, nameLink(other, true), ` · ${game.to_move === game.you ? "your move" : "their move"}`),
    el("button", { type: "button", class: "primary", "data-resume": String(game.game), onclick: () => actions.resume(game.game) }, "Resume"));
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
  if (update.arenas) state.arenas = update.arenas;
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
  const watch = () => actions.watch(game.game);
  return el("li", { "data-key": `game-${game.game}`, "data-game": String(game.game), class: "game-item" },
    game.board ? miniature(game.variant, game.board, watch) : null,
    el("span", { class: "who" }, `#${game.game} ${game.variant}: `, nameLink(game.x, true), " vs ", nameLink(game.o, true), ` · ${plural(game.moves, "move")} · ${game.watchers} watching `,
      playerMenu(game.x, `listed-${game.game}-x`, game.game, actions), " ",
      playerMenu(game.o, `listed-${game.game}-o`, game.game, actions)),
    el("button", { type: "button", "aria-label": `Watch game ${game.game}`, onclick: watch }, "Watch"));
}

/** A small picture of a board (the cubes' layers side by side); a click opens its game. */
function miniature(/** @type {string} */ variant, /** @type {string} */ board, /** @type {() => void} */ open) {
  const side = variant === "four" || variant === "qubic" ? 4 : 3;
  const layers = variant === "cube" || variant === "qubic" ? side : 1;
  const picture = el("div", { class: `mini ${variant}`, role: "img", "aria-label": `${variant} board`, "data-board": board, onclick: open });
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
  return el("div", { class: "panel", "data-key": "browse", "data-feedback": "browse" },
    el("h2", {}, "All live games"),
    el("label", {}, "Variant ", filter),
    browse.games.length ? el("ul", { id: "browse-list", class: "game-list" }, ...browse.games.map((/** @type {any} */ g) => gameItem(g, actions)))
      : el("p", { class: "dim" }, browse.loading ? "Loading…" : "No live games."),
    el("div", { class: "row" },
      el("button", { id: "browse-previous", type: "button", disabled: browse.cursors.length === 0, onclick: () => actions.page(-1) }, "Previous page"),
      el("button", { id: "browse-next", type: "button", disabled: browse.next === undefined, onclick: () => actions.page(1) }, "Next page"),
      el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby")));
}



function list(/** @type {HTMLElement[]} */ items, /** @type {string} */ empty, /** @type {string} */ id) {
  return items.length ? el("ul", { id }, ...items) : el("p", { class: "dim", id: `${id}-none` }, empty);
}

function roomBox(/** @type {any} */ state, /** @type {any} */ actions) {
  const code = state.room;
  const link = `${location.origin}/#room=${encodeURIComponent(code)}`;
  return el("div", { class: "room", id: "room-box", "data-feedback": "room-box" },
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
