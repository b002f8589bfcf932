// @ts-check
/**
 * A finished game replayed from its record: the board at a chosen move, the move list beside it
 * with the engine's verdict on each move (best, inaccuracy ?, blunder ??; from `analyse_game`),
 * a move clicked is jumped to, labelled buttons to step, and the arrow keys, Home and End; the
 * move shown judged in plain words, the graph of the position's value and each side's accuracy.
 */

import { boardView, cellName, coordsSwitch } from "./board.js";
import { howText, winnerText } from "./game.js";
import { accuracyText, valueGraph, verdictText } from "./evaluation.js";
import { el, moveList, nameLink, plural } from "./views.js";

/** What a verdict is called, and the mark a move list puts after the move (as in chess). */
const VERDICTS = /** @type {Record<string, [string, string]>} */ ({
  best: ["best", ""], inaccuracy: ["inaccuracy", "?"], blunder: ["blunder", "??"], unknown: ["not judged", ""],
});

/**
 * The engine's verdict on move `i` (from 0) as `[word, mark]`, or null while it is awaited.
 * A move the engine is still working on is "being judged", one it gave up on "not judged".
 * @param {{verdicts: string[] | null, analysis?: {moves: {not_judged?: string}[]}}} replay
 * @param {number} i
 */
function verdictOf(replay, i) {
  const verdict = replay.verdicts?.[i];
  if (verdict === "unknown" && replay.analysis?.moves?.[i]?.not_judged === "pending") return ["being judged", ""];
  return verdict ? VERDICTS[verdict] ?? VERDICTS.unknown : null;
}

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
 * What the engine says of the game: the move shown in plain words, the value graph, accuracy.
 * @param {{record: any, ply: number, analysis: {moves: any[], complete: boolean} | null}} replay
 */
function engineView(replay) {
  const { record, ply, analysis } = replay;
  if (!analysis?.moves?.length) return [];
  const moves = analysis.moves;
  const pending = moves.filter((m) => m.not_judged === "pending").length;
  const judged = ply ? moves[ply - 1] : null;
  return [
    judged ? el("p", { id: "replay-verdict" },
      `${judged.verdict === "unknown" ? "" : VERDICTS[judged.verdict]?.[1] ?? ""} ${record.moves[ply - 1].mark.toUpperCase()} ${cellName(record.variant, judged.cell)}: ${verdictText(judged, record.moves[ply - 1].mark, record.variant)}`.trim())
      : null,
    el("figure", { class: "value-figure" }, valueGraph(moves, ply),
      el("figcaption", { class: "dim" }, "The position's value, move by move: up when X wins with best play, down when O does, a thin line for a draw, grey where the engine has not proven it.")),
    el("p", { id: "replay-accuracy" }, `Accuracy (share of judged moves that were best): ${accuracyText(moves)}`),
    el("p", { id: "replay-progress", class: "dim" }, analysis.complete ? "Analysis complete."
      : `The engine is still judging: ${plural(pending, "move")} to go…`),
  ];
}

/**
 * @param {{record: any, ply: number, verdicts: string[] | null, analysis: {moves: any[], complete: boolean} | null}} replay
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
  const moves = moveList(record.moves.length, (i) => {
    const move = record.moves[i];
    const verdict = verdictOf(replay, i);
    const text = `${move.mark.toUpperCase()} ${cellName(record.variant, move.cell)}`;
    return el("button", {
      type: "button", class: "move", "data-ply": String(i + 1),
      "data-verdict": replay.verdicts?.[i] ?? false,
      "aria-current": i + 1 === ply ? "step" : false,
      "aria-label": `move ${Math.floor(i / 2) + 1}, ${verdict ? `${text}, ${verdict[0]}` : text}`,
      onclick: () => step(i + 1),
    }, text, verdict && verdict[1] ? el("span", { class: "verdict", "aria-hidden": "true" }, verdict[1]) : null);
  }, "replay-moves");
  const judged = last ? verdictOf(replay, ply - 1) : null;
  return el("div", { class: "replay", "data-key": `replay-${record.game}`, "data-ply": String(ply) },
    el("h2", {}, `Replay of game #${record.game} · ${record.variant}: `, nameLink(record.x, true), " vs ", nameLink(record.o, true)),
    el("div", { class: "layout" },
      el("div", { class: "board-box" }, boardView({
        key: `replay-${record.game}`, variant: record.variant, board, winning: end ? record.result?.cells ?? [] : [],
        last: last ? last.cell : null, playable: false, onPlay: () => {},
      }), coordsSwitch(actions.render)),
      el("aside", {},
        el("p", { id: "replay-status" },
          last ? `move ${ply} of ${record.moves.length}: ${last.mark.toUpperCase()} on ${cellName(record.variant, last.cell)}${judged ? `, ${judged[0]}` : ""}` : `start · ${plural(record.moves.length, "move")}`),
        record.result ? el("p", { id: "replay-engine", class: "dim" },
          replay.verdicts ? "The engine's verdicts: ? an inaccuracy (a slower win or a quicker loss), ?? a blunder (a win or draw given away)." : "The engine is judging the moves…") : null,
        ...engineView(replay),
        end && record.result ? el("p", { id: "replay-result" }, `${winnerText(record.result, record)}, ${howText(record.result, record.variant)}`) : null,
        el("div", { class: "row", role: "group", "aria-label": "step through the game (arrow keys, Home, End)" },
          control("replay-start", "«", "first move", 0),
          control("replay-back", "‹", "previous move", ply - 1),
          control("replay-next", "›", "next move", ply + 1),
          control("replay-end", "»", "last move", record.moves.length)),
        moves,
        el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"))));
}
