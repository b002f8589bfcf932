// @ts-check
/**
 * The lobby's ways to start a game, each with settings of its own, remembered in localStorage
 * across visits: quick pairing (one press for a common variant and clock, as lichess's grid), the
 * AI (variant, clock, level, side; medium to begin with, as in the terminal client), a custom
 * seek (variant, clock, rated), and a room for a friend (variant, clock, rated, private) or an
 * invite code.
 */

import { levelRating } from "./league.js";
import { CLOCKS, el } from "./views.js";

/** The common variant and clock pairs, one press each: [variant, clock or null]. */
const PAIRS = /** @type {[string, any][]} */ ([
  ["classic", { initial_ms: 60000, increment_ms: 0 }],
  ["classic", { initial_ms: 180000, increment_ms: 2000 }],
  ["classic", null],
  ["four", { initial_ms: 180000, increment_ms: 2000 }],
  ["four", { initial_ms: 300000, increment_ms: 0 }],
  ["four", null],
  ["cube", { initial_ms: 180000, increment_ms: 2000 }],
  ["cube", { initial_ms: 300000, increment_ms: 0 }],
  ["qubic", { initial_ms: 600000, increment_ms: 5000 }],
]);

const VARIANTS = /** @type {[string, any][]} */ ([["classic", "classic"], ["four", "four"], ["cube", "cube"], ["qubic", "qubic"]]);
const LEVELS = /** @type {[string, any][]} */ ([["easy", "easy"], ["medium", "medium"], ["hard", "hard"], ["perfect", "perfect"], ["random", "random"]]);
const SIDES = /** @type {[string, any][]} */ ([["X (first)", "x"], ["O", "o"], ["random", "random"]]);

/** What each way starts with, before the player chooses. */
const DEFAULTS = /** @type {Record<string, Record<string, any>>} */ ({
  pair: { rated: false },
  ai: { variant: "classic", clock: null, level: "medium", side: "x" },
  seek: { variant: "classic", clock: null, rated: false, bots: false },
  room: { variant: "classic", clock: null, rated: false, private: true },
});

/** The remembered settings of `kind` ("pair", "ai", "seek", "room"). */
export function settings(/** @type {string} */ kind) {
  try {
    return { ...DEFAULTS[kind], ...JSON.parse(localStorage.getItem(`noughts.play.${kind}`) ?? "{}") };
  } catch {
    return { ...DEFAULTS[kind] };
  }
}

/** Remembers one setting of `kind`. */
function remember(/** @type {string} */ kind, /** @type {string} */ key, /** @type {any} */ value) {
  localStorage.setItem(`noughts.play.${kind}`, JSON.stringify({ ...settings(kind), [key]: value }));
}

/** "3+2", or "no clock". */
function clockLabel(/** @type {any} */ clock) {
  return clock ? `${clock.initial_ms / 60000}+${clock.increment_ms / 1000}` : "no clock";
}

/**
 * A labelled select of `kind`'s setting `key`, showing what is remembered and remembering what
 * is chosen.
 * @param {string} kind
 * @param {string} key
 * @param {string} label
 * @param {[string, any][]} options
 * @param {() => void} [after] what follows a choice (the AI's variant and level redraw its rating)
 */
function setting(kind, key, label, options, after = () => {}) {
  const current = JSON.stringify(settings(kind)[key] ?? null);
  const id = kind === "ai" && key === "level" ? "level" : kind === "ai" && key === "side" ? "side" : `${kind}-${key}`;
  return el("label", {}, `${label} `, el("select", {
    id, "data-setting": `${kind}.${key}`,
    onchange: (event) => {
      remember(kind, key, JSON.parse(/** @type {HTMLSelectElement} */ (event.target).value));
      after();
    },
  }, ...options.map(([text, value]) => el("option", { value: JSON.stringify(value), selected: JSON.stringify(value) === current }, text))));
}

/** A remembered checkbox of `kind`'s setting `key`. */
function check(/** @type {string} */ kind, /** @type {string} */ key, /** @type {string} */ id, /** @type {string} */ label) {
  return el("label", { class: "check" }, el("input", {
    type: "checkbox", id, checked: Boolean(settings(kind)[key]), "data-setting": `${kind}.${key}`,
    onchange: (event) => remember(kind, key, /** @type {HTMLInputElement} */ (event.target).checked),
  }), ` ${label}`);
}

/** `request` with `clock` added when there is one. */
function timed(/** @type {any} */ request, /** @type {any} */ clock) {
  if (clock) request.clock = clock;
  return request;
}

/** The league's rating of the AI's level chosen, when the table is known: "medium plays like 1570". */
function aiRating(/** @type {any} */ state) {
  const ai = settings("ai");
  const said = levelRating(state, ai.variant, ai.level);
  return said ? el("p", { id: "level-rating", class: "dim" }, said) : null;
}

/**
 * The play panel.
 * @param {any} state the page's state (seeking, room)
 * @param {any} actions the page's actions (send, render, say)
 * @param {(state: any, actions: any) => HTMLElement} roomBox the open room's box
 */
export function playPanel(state, actions, roomBox) {
  const send = actions.send;
  const seeking = state.seeking;
  const pairs = PAIRS.map(([variant, clock]) => {
    const pressed = Boolean(seeking && seeking.variant === variant && JSON.stringify(seeking.clock ?? null) === JSON.stringify(clock));
    return el("button", {
      type: "button", class: "pair", "data-pair": `${variant} ${clockLabel(clock)}`, "aria-pressed": String(pressed),
      // A second press takes the seek back.
      onclick: () => {
        if (pressed) {
          send({ type: "cancel_seek" });
          state.seeking = null;
          actions.render();
          return;
        }
        state.seekAsked = { variant, clock };
        send(timed({ type: "seek", variant, rated: settings("pair").rated }, clock));
      },
      }, el("span", { class: "clock-spec" }, clockLabel(clock)), el("span", { class: "variant-name" }, variant));
  });
  return el("section", { class: "panel", "aria-labelledby": "play-title", "data-key": "play" },
    el("h2", { id: "play-title" }, "Play"),
    el("section", { "aria-labelledby": "pairs-title", "data-feedback": "pairs" },
      el("h3", { id: "pairs-title" }, "Quick pairing"),
      el("div", { class: "pairs", id: "pairs" }, ...pairs),
      el("div", { class: "row" }, check("pair", "rated", "pair-rated", "rated (accounts only)")),
      seeking ? el("p", { id: "seeking", class: "row" }, `Looking for an opponent: ${seeking.variant}, ${clockLabel(seeking.clock)}… `,
        el("button", { type: "button", id: "cancel-seek", onclick: () => { send({ type: "cancel_seek" }); state.seeking = null; actions.render(); } }, "Cancel")) : null),
    el("section", { class: "kind", "aria-labelledby": "ai-title", "data-feedback": "ai" },
      el("h3", { id: "ai-title" }, "Play the AI"),
      el("div", { class: "row" },
        setting("ai", "variant", "Variant", VARIANTS, actions.render), setting("ai", "level", "Level", LEVELS, actions.render),
        setting("ai", "side", "Side", SIDES), setting("ai", "clock", "Clock", CLOCKS)),
      aiRating(state),
      el("button", { id: "play-ai", type: "button", class: "primary", onclick: () => {
        const ai = settings("ai");
        send(timed({ type: "play_ai", variant: ai.variant, level: ai.level, side: ai.side }, ai.clock));
      } }, "Play the AI")),
    el("section", { class: "kind", "aria-labelledby": "seek-title", "data-feedback": "seek" },
      el("h3", { id: "seek-title" }, "Custom seek"),
      el("div", { class: "row" },
        setting("seek", "variant", "Variant", VARIANTS), setting("seek", "clock", "Clock", CLOCKS),
        check("seek", "rated", "rated", "rated"), check("seek", "bots", "seek-bots", "bots welcome")),
      el("button", { id: "quick-match", type: "button", onclick: () => {
        const seek = settings("seek");
        state.seekAsked = { variant: seek.variant, clock: seek.clock };
        const request = { type: "seek", variant: seek.variant, rated: seek.rated };
        send(timed(seek.bots ? { ...request, bots: true } : request, seek.clock));
      } }, "Seek an opponent")),
    el("section", { class: "kind", "aria-labelledby": "room-title", "data-feedback": "room" },
      el("h3", { id: "room-title" }, "Play a friend"),
      el("div", { class: "row" },
        setting("room", "variant", "Variant", VARIANTS), setting("room", "clock", "Clock", CLOCKS),
        check("room", "rated", "room-rated", "rated"), check("room", "private", "private", "private")),
      el("button", { id: "create-room", type: "button", onclick: () => {
        const room = settings("room");
        send(timed({ type: "create_room", variant: room.variant, private: room.private, rated: room.rated }, room.clock));
      } }, "Create a room"),
      state.room ? roomBox(state, actions) : null,
      el("div", { class: "row" },
        el("label", {}, "Invite code ", el("input", { id: "code", autocomplete: "off", maxlength: "16",
          onkeydown: (event) => { if (/** @type {KeyboardEvent} */ (event).key === "Enter") joinRoom(send); } })),
        el("button", { id: "join", type: "button", onclick: () => joinRoom(send) }, "Join"))));
}

function joinRoom(/** @type {(request: any) => void} */ send) {
  const code = /** @type {HTMLInputElement} */ (document.getElementById("code")).value.trim();
  if (code) send({ type: "join_room", code });
}
