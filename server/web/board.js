// @ts-check
/**
 * Boards as buttons: one `<button data-cell="N">` per cell (N the protocol's 0-based index),
 * `data-mark="X"` or `"O"` once taken, labelled for screen readers with the cell's name as
 * people type it (1 to 9 on classic, b3 on four, 2b3 on the cubes). The cubes are drawn as their
 * layers side by side. The board is one tab stop (a roving tabindex): the arrow keys move inside
 * it, Page Up and Page Down change layers on the cubes, Enter or Space plays, and on classic the
 * digits play. Coordinates (switchable, remembered) name the cells as the move list does: the
 * files over the top row, the ranks beside the left column, the number in each classic cell.
 */

import { el, on } from "./views.js";

/** @type {Record<string, {side: number, dims: number}>} */
export const VARIANTS = {
  classic: { side: 3, dims: 2 },
  four: { side: 4, dims: 2 },
  cube: { side: 3, dims: 3 },
  qubic: { side: 4, dims: 3 },
};

/** The name people use for a cell. */
export function cellName(/** @type {string} */ variant, /** @type {number} */ cell) {
  const { side, dims } = VARIANTS[variant];
  if (variant === "classic") return String(cell + 1);
  const col = cell % side;
  const row = Math.floor(cell / side) % side;
  const name = String.fromCharCode(97 + col) + (row + 1);
  return dims === 3 ? String(Math.floor(cell / (side * side)) + 1) + name : name;
}

const COORDS = "noughts.coords";

/** Whether the boards show their coordinates (they do unless switched off). */
export function coordsShown() {
  return localStorage.getItem(COORDS) !== "0";
}

/** Shows or hides the coordinates on every board, remembered for next time. */
export function setCoords(/** @type {boolean} */ on) {
  localStorage.setItem(COORDS, on ? "1" : "0");
}

/** The switch for the coordinates, under a board. */
export function coordsSwitch(/** @type {() => void} */ render) {
  return el("label", { class: "check board-tools", "data-key": "coords-switch" },
    el("input", { type: "checkbox", id: "coords", checked: coordsShown(), onchange: (event) => {
      setCoords(/** @type {HTMLInputElement} */ (event.target).checked);
      render();
    } }), " Coordinates");
}

/** The cell that holds the board's tab stop, by board key (a game, a replay). */
const cursors = /** @type {Map<string, number>} */ (new Map());

/**
 * A board for `board` (the protocol's board text), to be put on the page (or morphed into the
 * one already there, which keeps the focused cell focused).
 * @param {{key: string, variant: string, board: string, winning?: number[], last?: number | null,
 *   playable: boolean, onPlay: (cell: number) => void}} options
 * @returns {HTMLElement}
 */
export function boardView(options) {
  const { key, variant, board, playable, onPlay } = options;
  const { side, dims } = VARIANTS[variant];
  const layers = dims === 3 ? side : 1;
  const winning = new Set(options.winning ?? []);
  const cursor = cursors.get(key) ?? options.last ?? Math.floor(board.length / 2);
  const wrap = el("div", {
    class: `board ${variant}${coordsShown() ? " coords" : ""}`, role: "group", "data-key": `board-${key}`,
    "aria-label": `${variant} board: arrow keys move, Enter plays${dims === 3 ? ", Page Up and Page Down change layer" : ""}`,
  });
  for (let layer = 0; layer < layers; layer++) {
    const grid = el("div", { class: "grid" });
    for (let i = 0; i < side * side; i++) {
      const cell = layer * side * side + i;
      const mark = board[cell];
      const taken = mark === "X" || mark === "O";
      const name = cellName(variant, cell);
      const open = playable && !taken;
      const button = el("button", {
        type: "button",
        class: `cell${winning.has(cell) ? " win" : ""}${options.last === cell ? " last" : ""}`,
        "data-cell": String(cell),
        "data-mark": taken ? mark : false,
        "data-number": variant === "classic" ? name : false,
        "data-file": variant !== "classic" && i < side ? name.at(-2) ?? false : false,
        "data-rank": variant !== "classic" && i % side === 0 ? String(Math.floor(i / side) + 1) : false,
        "aria-label": `cell ${name}, ${taken ? mark : "empty"}${winning.has(cell) ? ", winning line" : ""}`,
        title: name,
        tabindex: cell === cursor ? "0" : "-1",
        // Never `disabled`: every cell stays reachable by keyboard and screen reader.
        "aria-disabled": open ? false : "true",
        onclick: () => {
          cursors.set(key, cell);
          if (open) onPlay(cell);
        },
        onfocus: () => cursors.set(key, cell),
        onkeydown: (event) => moveFocus(/** @type {KeyboardEvent} */ (event), key, variant, cell, onPlay, playable),
      }, taken ? mark : "");
      grid.append(button);
    }
    wrap.append(dims === 3
      ? el("div", { class: "layer" }, el("div", { class: "layer-label", "aria-hidden": "true" }, `layer ${layer + 1}`), grid)
      : el("div", { class: "layer" }, grid));
  }
  return wrap;
}

/**
 * @param {KeyboardEvent} event
 * @param {string} key
 * @param {string} variant
 * @param {number} cell
 * @param {(cell: number) => void} onPlay
 * @param {boolean} playable
 */
function moveFocus(event, key, variant, cell, onPlay, playable) {
  const { side, dims } = VARIANTS[variant];
  const per = side * side;
  let next = cell;
  const col = cell % side;
  const row = Math.floor(cell / side) % side;
  const layer = Math.floor(cell / per);
  switch (event.key) {
    case "ArrowLeft": if (col > 0) next -= 1; else if (dims === 3 && layer > 0) next -= per - (side - 1); break;
    case "ArrowRight": if (col < side - 1) next += 1; else if (dims === 3 && layer < side - 1) next += per - (side - 1); break;
    case "ArrowUp": if (row > 0) next -= side; break;
    case "ArrowDown": if (row < side - 1) next += side; break;
    case "PageUp": if (dims === 3 && layer > 0) next -= per; break;
    case "PageDown": if (dims === 3 && layer < side - 1) next += per; break;
    case "Home": next = layer * per + row * side; break;
    case "End": next = layer * per + row * side + side - 1; break;
    default:
      if (variant === "classic" && /^[1-9]$/.test(event.key) && playable) {
        cursors.set(key, Number(event.key) - 1);
        focusCell(key, Number(event.key) - 1);
        onPlay(Number(event.key) - 1);
        event.preventDefault();
      }
      return;
  }
  event.preventDefault();
  cursors.set(key, next);
  focusCell(key, next);
}

/** Moves the board's tab stop to `cell` and focuses it. */
function focusCell(/** @type {string} */ key, /** @type {number} */ cell) {
  const wrap = document.querySelector(`[data-key="board-${key}"]`);
  if (!wrap) return;
  for (const button of wrap.querySelectorAll("[data-cell]")) {
    button.setAttribute("tabindex", button.getAttribute("data-cell") === String(cell) ? "0" : "-1");
  }
  /** @type {HTMLElement | null} */ (wrap.querySelector(`[data-cell="${cell}"]`))?.focus();
}

/** Focuses the tab stop of the board on the page, if any; true if there was one. */
export function focusBoard() {
  /** @type {HTMLElement | null} */
  const stop = document.querySelector(".board [data-cell][tabindex=\"0\"]");
  stop?.focus();
  return Boolean(stop);
}
