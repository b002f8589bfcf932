// @ts-check
/**
 * A finished game replayed from its record: the board at a chosen move, the move list beside it
 * (a move clicked is jumped to), labelled buttons to step, and the arrow keys, Home and End.
 */

import { boardView, cellName } from "./board.js";
import { howText, winnerText } from "./game.js";
import { el, seatText } from "./views.js";

/**
 * Steps `replay` by the key pressed; true if the key was one of the replay's.
 * @param {{record: any, ply: number}} replay
 * @param {string} key
 */
export function stepReplay(replay, key) {
  const last = replay.record.moves.length;
  const to = { ArrowRight: replay.ply + 1, ArrowLeft: replay.ply - 1, Home: 0, End: last }[key];
  if (to === undefined) return false;
  replay.ply = Math.max(0, Math.min(last, to));
  return true;
}

/**
 * @param {{record: any, ply: number}} replay
 * @param {any} actions the page's actions (render, lobby)
 */
export function replayView(replay, actions) {
  const { record, ply } = replay;
  let board = ".".repeat(record.board.length);
  for (let i = 0; i < ply; i++) {
    const { mark, cell } = record.moves[i];
    board = board.slice(0, cell) + mark.toUpperCase() + board.slice(cell + 1);
  }
  const end = ply === record.moves.length;
  const step = (/** @type {number} */ to) => {
    replay.ply = Math.max(0, Math.min(record.moves.length, to));
    actions.render();
  };
  const last = ply ? record.moves[ply - 1] : null;
  const control = (/** @type {string} */ id, /** @type {string} */ glyph, /** @type {string} */ label, /** @type {number} */ to) =>
    el("button", { id, type: "button", "aria-label": label, title: label, onclick: () => step(to) }, glyph);
  const moves = el("ol", { class: "moves replay-moves", "aria-label": "moves" },
    ...record.moves.map((/** @type {any} */ move, /** @type {number} */ i) => el("li", {},
      el("button", {
        type: "button", class: "move", "data-ply": String(i + 1),
        "aria-current": i + 1 === ply ? "step" : false,
        onclick: () => step(i + 1),
      }, `${move.mark.toUpperCase()} ${cellName(record.variant, move.cell)}`))));
  return el("div", { class: "replay", "data-key": `replay-${record.game}`, "data-ply": String(ply) },
    el("h2", {}, `Replay of game #${record.game} · ${record.variant}: ${seatText(record.x)} vs ${seatText(record.o)}`),
    el("div", { class: "layout" },
      el("div", { class: "board-box" }, boardView({
        key: `replay-${record.game}`, variant: record.variant, board, winning: end ? record.result?.cells ?? [] : [],
        last: last ? last.cell : null, playable: false, onPlay: () => {},
      })),
      el("aside", {},
        el("p", { id: "replay-status" },
          last ? `move ${ply} of ${record.moves.length}: ${last.mark.toUpperCase()} on ${cellName(record.variant, last.cell)}` : `start · ${record.moves.length} moves`),
        end && record.result ? el("p", { id: "replay-result" }, `${winnerText(record.result, record)}, ${howText(record.result, record.variant)}`) : null,
        el("div", { class: "row", role: "group", "aria-label": "step through the game (arrow keys, Home, End)" },
          control("replay-start", "«", "first move", 0),
          control("replay-back", "‹", "previous move", ply - 1),
          control("replay-next", "›", "next move", ply + 1),
          control("replay-end", "»", "last move", record.moves.length)),
        moves,
        el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"))));
}
