// @ts-check
/**
 * The engine's judgement of a finished game in plain words (from `game_analysis`): what a move
 * was, the best move, and what the position was worth before and after ("best was c3; X wins in
 * 7 → draw"); the graph of the position's value over the game, as proven per ply; and each side's
 * accuracy (the share of its judged moves that were best). The terminal client says the same.
 */

import { cellName } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * A position's worth in words, for `mover` (the side the worth is for): "X wins in 7", "draw",
 * "unknown".
 * @param {{value: string, plies?: number}} worth
 * @param {string} mover "x" or "o"
 */
export function worthText(worth, mover) {
  const other = mover === "x" ? "O" : "X";
  const side = mover.toUpperCase();
  const within = worth.plies !== undefined ? ` in ${worth.plies}` : "";
  switch (worth.value) {
    case "win": return `${side} wins${within}`;
    case "loss": return `${other} wins${within}`;
    case "draw": return "draw";
    default: return "unknown";
  }
}

/**
 * What move `judged` (played by `mover` in a game of `variant`) was, in plain words.
 * @param {any} judged a `moves` entry of `game_analysis`
 * @param {string} mover
 * @param {string} variant
 */
export function verdictText(judged, mover, variant) {
  if (judged.not_judged === "pending") return "not judged yet: the engine is still working on it";
  if (judged.not_judged) return "not judged: not proven within the engine's budget";
  const before = worthText(judged.before, mover);
  const after = worthText(judged.after, mover);
  const change = `${before} → ${after}`;
  if (judged.verdict === "best") return `best move; ${after}`;
  const best = judged.best !== undefined ? `best was ${cellName(variant, judged.best)}; ` : "";
  return `${judged.verdict}: ${best}${change}`;
}

/**
 * Each side's accuracy: the share of its judged moves that were best, and how many were judged.
 * @param {any[]} moves
 */
export function accuracyText(moves) {
  return ["x", "o"].map((mover, side) => {
    const own = moves.filter((_, i) => i % 2 === side);
    const judged = own.filter((m) => m.verdict !== "unknown");
    const best = judged.filter((m) => m.verdict === "best").length;
    const name = mover.toUpperCase();
    if (!judged.length) return `${name}: no move judged (of ${own.length})`;
    const share = Math.round((100 * best) / judged.length);
    return `${name}: accuracy ${share}% (${best} of ${judged.length} judged moves best, ${own.length} played)`;
  }).join(" · ");
}

/**
 * The position's value after each ply (ply 0 the empty board) for X: 1 X wins, 0 draw, -1 O
 * wins, null unknown.
 * @param {any[]} moves
 * @returns {(number | null)[]}
 */
export function values(moves) {
  const score = (/** @type {any} */ worth, /** @type {number} */ sign) =>
    ({ win: sign, draw: 0, loss: -sign })[/** @type {string} */ (worth.value)] ?? null;
  if (!moves.length) return [];
  return [score(moves[0].before, 1), ...moves.map((m, i) => score(m.after, i % 2 ? -1 : 1))];
}

/**
 * The value graph as inline SVG: a bar per ply, up for X winning, down for O, a thin line for a
 * draw, and a grey full-height band where the value is unknown; the ply shown is outlined.
 * @param {any[]} moves
 * @param {number} ply
 */
export function valueGraph(moves, ply) {
  const points = values(moves);
  const width = 600;
  const height = 120;
  const mid = height / 2;
  const step = width / Math.max(points.length, 1);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart value-graph");
  svg.setAttribute("id", "value-graph");
  svg.setAttribute("role", "img");
  const words = (/** @type {number | null} */ v) => (v === null ? "unknown" : v > 0 ? "X wins" : v < 0 ? "O wins" : "draw");
  const title = document.createElementNS(SVG, "title");
  title.textContent = `The position's value over the game: ${points.map((v, i) => `${i} ${words(v)}`).join(", ")}`;
  svg.append(title);
  const rect = (/** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ h, /** @type {string} */ kind) => {
    const bar = document.createElementNS(SVG, "rect");
    bar.setAttribute("x", x.toFixed(1));
    bar.setAttribute("y", y.toFixed(1));
    bar.setAttribute("width", Math.max(step - 1, 1).toFixed(1));
    bar.setAttribute("height", h.toFixed(1));
    bar.setAttribute("class", kind);
    return bar;
  };
  points.forEach((v, i) => {
    const x = i * step;
    const kind = v === null ? "unknown" : v > 0 ? "x-wins" : v < 0 ? "o-wins" : "draw";
    const bar = v === null ? rect(x, 4, height - 8, kind)
      : v > 0 ? rect(x, 4, mid - 4, kind)
        : v < 0 ? rect(x, mid, mid - 4, kind) : rect(x, mid - 2, 4, kind);
    bar.setAttribute("data-ply", String(i));
    if (i === ply) bar.classList.add("current");
    svg.append(bar);
  });
  const axis = document.createElementNS(SVG, "line");
  axis.setAttribute("x1", "0");
  axis.setAttribute("x2", String(width));
  axis.setAttribute("y1", String(mid));
  axis.setAttribute("y2", String(mid));
  axis.setAttribute("class", "axis-line");
  svg.append(axis);
  return svg;
}
