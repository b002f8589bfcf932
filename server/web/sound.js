// @ts-check
/**
 * Calling a player back: a short chime (made with Web Audio, no sound files) when a match is
 * found and when it is their move, unless muted; the mute switch is remembered in localStorage.
 * Every chime played is listed in `window.noughtsSounds`, where the browser tests look.
 */

const MUTE = "noughts.mute";

/** @type {AudioContext | null} */
let context = null;
const played = /** @type {string[]} */ ([]);
/** @type {any} */ (window).noughtsSounds = played;

// Browsers let a page make sound only after a gesture: the first press or key makes it ready.
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => {
    try {
      context ??= new AudioContext();
      void context.resume();
    } catch {
      context = null;
    }
  }, { once: true, capture: true });
}

/** Whether the player has muted the chimes. */
export function muted() {
  return localStorage.getItem(MUTE) === "1";
}

/** Mutes or unmutes the chimes, remembered for next time. */
export function setMuted(/** @type {boolean} */ on) {
  localStorage.setItem(MUTE, on ? "1" : "0");
}

/** Plays the chime for `kind` ("match": a game found, "move": your move) unless muted. */
export function chime(/** @type {"match" | "move"} */ kind) {
  if (muted()) return;
  played.push(kind);
  if (!context || context.state !== "running") return;
  const notes = kind === "match" ? [660, 880] : [880];
  notes.forEach((frequency, i) => {
    if (!context) return;
    const start = context.currentTime + i * 0.12;
    const tone = context.createOscillator();
    const level = context.createGain();
    tone.frequency.value = frequency;
    level.gain.setValueAtTime(0.15, start);
    level.gain.exponentialRampToValueAtTime(0.001, start + 0.25);
    tone.connect(level).connect(context.destination);
    tone.start(start);
    tone.stop(start + 0.3);
  });
}

/** Makes `button` the mute switch: pressed while the chimes are muted. */
export function muteSwitch(/** @type {HTMLButtonElement} */ button) {
  const show = () => button.setAttribute("aria-pressed", String(muted()));
  button.addEventListener("click", () => {
    setMuted(!muted());
    show();
  });
  show();
}
