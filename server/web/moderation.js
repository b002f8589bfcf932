// @ts-check
/**
 * Mute, block and report, offered beside another player's name (a game's seats and chat lines, the
 * lobby's seeks, rooms and games, the leaderboard, the opponents in "My games"):
 * a button opens a small menu; muting hides the player's chat (the server stops sending it, and
 * lines already shown go), blocking keeps the two apart in quick match and rooms, a report goes
 * to the server's operator with a category and a reason. What the player mutes and blocks is
 * asked of the server (`moderation_list`) the first time a menu opens.
 */

import { el } from "./views.js";

/** What the report form offers, as the protocol names them. */
const CATEGORIES = [["abuse", "Abuse in chat"], ["spam", "Spam"], ["name", "An offensive name"], ["cheating", "Cheating or stalling"], ["other", "Something else"]];

/**
 * The page's moderation state: the players muted and blocked (known once listed), the menu open
 * (its key), the report being written (its key), and the requests waiting for their `ok`.
 */
export const moderation = {
  /** @type {Set<number>} */ muted: new Set(),
  /** @type {Set<number>} */ blocked: new Set(),
  /** Whether `moderation_list` has been asked for. */ asked: false,
  /** @type {string | null} */ open: null,
  /** @type {string | null} */ reporting: null,
  /** What to do and say when each request is answered `ok`, by request id. @type {Map<number, () => string>} */ waiting: new Map(),
};

/**
 * What the menus need from the page.
 * @typedef {{send: (request: any) => number, render: () => void, player: number | null}} ModerationActions
 */

/** Takes in the server's `moderation_list`. */
export function listed(/** @type {any} */ message) {
  moderation.muted = new Set(message.muted.map((/** @type {any} */ p) => p.player));
  moderation.blocked = new Set(message.blocked.map((/** @type {any} */ p) => p.player));
}

/** An `ok` for a moderation request: done, and what to say about it; null if not one of ours. */
export function answered(/** @type {number} */ id) {
  const done = moderation.waiting.get(id);
  if (!done) return null;
  moderation.waiting.delete(id);
  return done();
}

/** A refused moderation request is no longer waited for. */
export function refused(/** @type {number} */ id) {
  moderation.waiting.delete(id);
}

/** Chat lines without those of muted players. */
export function unmuted(/** @type {any[]} */ lines) {
  return lines.filter((line) => line.player === undefined || !moderation.muted.has(line.player));
}

/**
 * The button beside `name` that opens its menu, and the menu when open; nothing for an AI seat
 * (no player id) or for the player themself.
 * @param {{player?: number, name: string}} who
 * @param {string} where what the name belongs to here (`seat-x`, `chat-3`): one menu per place
 * @param {number | null} game the game it is shown in, for a report
 * @param {ModerationActions} actions
 */
export function playerMenu(who, where, game, actions) {
  const { player, name } = who;
  if (player === undefined || player === null || player === actions.player) return null;
  const key = `${where}-${player}`;
  const open = moderation.open === key;
  const toggle = el("button", {
    type: "button", class: "player-menu", "data-player-menu": String(player),
    "aria-haspopup": "true", "aria-expanded": String(open), "aria-label": `Mute, block or report ${name}`,
    title: `Mute, block or report ${name}`,
    onclick: () => {
      moderation.open = open ? null : key;
      moderation.reporting = null;
      if (!moderation.asked) {
        moderation.asked = true;
        actions.send({ type: "moderation_list" });
      }
      actions.render();
    },
  }, "⋯");
  if (!open) return toggle;
  const muted = moderation.muted.has(player);
  const blocked = moderation.blocked.has(player);
  /** Sends `request`; once it is answered `ok`, `done` runs and says what became of it. */
  const ask = (/** @type {any} */ request, /** @type {() => string} */ done) => {
    moderation.waiting.set(actions.send(request), done);
    moderation.open = null;
    actions.render();
  };
  const menu = moderation.reporting === key
    ? reportForm(who, game, actions, ask)
    : el("div", { class: "menu", role: "group", "aria-label": `${name}` },
      el("button", {
        type: "button", "data-action": muted ? "unmute" : "mute",
        onclick: () => ask({ type: muted ? "unmute" : "mute", player }, () => {
          if (muted) {
            moderation.muted.delete(player);
            return `You see ${name}'s chat again.`;
          }
          moderation.muted.add(player);
          return `You have muted ${name}: you will not see their chat.`;
        }),
      }, muted ? "Unmute chat" : "Mute chat"),
      el("button", {
        type: "button", "data-action": blocked ? "unblock" : "block",
        onclick: () => ask({ type: blocked ? "unblock" : "block", player }, () => {
          if (blocked) {
            moderation.blocked.delete(player);
            return `You have unblocked ${name}.`;
          }
          moderation.blocked.add(player);
          return `You have blocked ${name}: you will not be paired with them, nor join each other's rooms.`;
        }),
      }, blocked ? "Unblock" : "Block"),
      el("button", {
        type: "button", "data-action": "report",
        onclick: () => { moderation.reporting = key; actions.render(); },
      }, "Report…"));
  return el("span", { class: "player-menu-box", "data-key": `menu-${key}` }, toggle, menu);
}

/**
 * The report form: a category, what happened, and send.
 * @param {{player?: number, name: string}} who
 * @param {number | null} game
 * @param {ModerationActions} actions
 * @param {(request: any, done: () => string) => void} ask
 */
function reportForm(who, game, actions, ask) {
  const send = () => {
    const category = /** @type {HTMLSelectElement | null} */ (document.getElementById("report-category"))?.value ?? "other";
    const reason = /** @type {HTMLInputElement | null} */ (document.getElementById("report-reason"))?.value.trim() ?? "";
    if (!reason) {
      document.getElementById("report-reason")?.focus();
      return;
    }
    /** @type {any} */
    const request = { type: "report", player: who.player, category, reason };
    if (game !== null) request.game = game;
    moderation.reporting = null;
    ask(request, () => `Thank you: your report on ${who.name} went to the server's operator.`);
  };
  return el("div", { class: "menu report", role: "group", "aria-label": `Report ${who.name}` },
    el("label", {}, "What happened ",
      el("select", { id: "report-category" }, ...CATEGORIES.map(([value, text]) => el("option", { value }, text)))),
    el("label", {}, "In a few words ",
      el("input", { id: "report-reason", maxlength: "500", autocomplete: "off", "data-autofocus": "true" })),
    el("div", { class: "row" },
      el("button", { type: "button", id: "report-send", onclick: send }, "Send report"),
      el("button", { type: "button", id: "report-cancel", onclick: () => { moderation.reporting = null; moderation.open = null; actions.render(); } }, "Cancel")));
}
