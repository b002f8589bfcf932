// @ts-check
/**
 * Boards as buttons: one `<button data-cell="N">` per cell (N the protocol's 0-based index),
 * `data-mark="X"` or `"O"` once taken, labelled for screen readers with the cell's name as
 * people type it (1 to 9 on classic, b3 on four, 2b3 on the cubes). The cubes are drawn as their
 * layers side by side. Arrow keys move between cells; on classic the digits play.
 */

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

/**
 * Draws `board` (the protocol's board text) into `container`.
 * @param {HTMLElement} container
 * @param {{variant: string, board: string, winning?: number[], last?: number | null,
 *   playable: boolean, onPlay: (cell: number) => void}} options
 */
export function renderBoard(container, options) {
  const { variant, board, playable, onPlay } = options;
  const { side, dims } = VARIANTS[variant];
  const focused = document.activeElement instanceof HTMLElement
    ? document.activeElement.dataset.cell
    : undefined;
  const layers = dims === 3 ? side : 1;
  const winning = new Set(options.winning ?? []);
  const wrap = document.createElement("div");
  wrap.className = `board ${variant}`;
  wrap.setAttribute("role", "group");
  wrap.setAttribute("aria-label", `${variant} board`);
  for (let layer = 0; layer < layers; layer++) {
    const frame = document.createElement("div");
    frame.className = "layer";
    if (dims === 3) {
      const label = document.createElement("div");
      label.className = "layer-label";
      label.textContent = `layer ${layer + 1}`;
      frame.append(label);
    }
    const grid = document.createElement("div");
    grid.className = "grid";
    grid.style.setProperty("--side", String(side));
    for (let i = 0; i < side * side; i++) {
      const cell = layer * side * side + i;
      const mark = board[cell];
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cell";
      button.dataset.cell = String(cell);
      const taken = mark === "X" || mark === "O";
      if (taken) button.dataset.mark = mark;
      if (winning.has(cell)) button.classList.add("win");
      if (options.last === cell) button.classList.add("last");
      button.textContent = taken ? mark : "";
      const name = cellName(variant, cell);
      button.setAttribute("aria-label", `cell ${name}, ${taken ? mark : "empty"}`);
      button.title = name;
      // Never `disabled`: every cell stays reachable by keyboard and screen reader.
      const open = playable && !taken;
      if (!open) button.setAttribute("aria-disabled", "true");
      button.addEventListener("click", () => {
        if (open) onPlay(cell);
      });
      button.addEventListener("keydown", (event) => moveFocus(event, wrap, variant, cell, onPlay, playable));
      grid.append(button);
    }
    frame.append(grid);
    wrap.append(frame);
  }
  container.replaceChildren(wrap);
  if (focused !== undefined) {
    /** @type {HTMLElement | null} */
    const again = wrap.querySelector(`[data-cell="${focused}"]`);
    again?.focus();
  }
}

/**
 * @param {KeyboardEvent} event
 * @param {HTMLElement} wrap
 * @param {string} variant
 * @param {number} cell
 * @param {(cell: number) => void} onPlay
 * @param {boolean} playable
 */
function moveFocus(event, wrap, variant, cell, onPlay, playable) {
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
    default:
      if (variant === "classic" && /^[1-9]$/.test(event.key) && playable) {
        onPlay(Number(event.key) - 1);
        event.preventDefault();
      }
      return;
  }
  event.preventDefault();
  /** @type {HTMLElement | null} */
  const target = wrap.querySelector(`[data-cell="${next}"]`);
  target?.focus();
}
