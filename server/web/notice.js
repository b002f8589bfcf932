// @ts-check
/**
 * Feedback beside the control it answers: what the page says ("Link copied", a refusal in plain
 * words) goes into the part of the view (`data-feedback="…"`) where the player last pressed or
 * typed, and atop the view when that part is not shown; it leaves when the player moves to
 * another view. Also the words for the server's error codes.
 */

import { el } from "./views.js";

const notice = {
  /** What is said (made afresh for each view), or nothing. @type {(() => (Node | string)[]) | null} */ said: null,
  /** The part of the view it answers. @type {string | null} */ zone: null,
  /** The address of the view it belongs to. */ at: "",
};

/** The part of the view the player last pressed or typed in. @type {string | null} */
let lastZone = null;
for (const type of ["click", "keydown"]) {
  document.addEventListener(type, (event) => {
    const target = event.target instanceof Element ? event.target.closest("[data-feedback]") : null;
    lastZone = target?.getAttribute("data-feedback") ?? null;
  }, { capture: true });
}

/**
 * Says `text` (and `details`, an error's code and the server's words, on a smaller line) beside
 * the control last used, in the view at `address`.
 * @param {string} address
 * @param {string | Node} text
 * @param {string} [details]
 * @param {() => Node} [more] makes what follows the text (a button)
 */
export function sayAt(address, text, details, more) {
  notice.said = () => [text, ...(more ? [more()] : []), ...(details ? [el("small", { class: "details" }, details)] : [])];
  notice.zone = lastZone;
  notice.at = address;
}

/**
 * Puts what is said into `view` (the page about to be shown at `address`): inside the part that
 * was pressed, else atop; forgets it once the view is another one.
 * @param {HTMLElement} view
 * @param {string} address
 */
export function placeNotice(view, address) {
  if (!notice.said) return;
  if (notice.at !== address) {
    notice.said = null;
    return;
  }
  // Fresh nodes each time: the page keeps the ones shown (same id) and copies only changes.
  const box = el("p", { id: "notice", role: "alert", "data-zone": notice.zone ?? "page" }, ...notice.said());
  const zone = notice.zone ? view.querySelector(`[data-feedback="${notice.zone}"]`) : null;
  if (zone) zone.append(box);
  else view.prepend(box);
}

/** What an error means to a player; the code and the server's words go in the details line. */
export function errorWords(/** @type {string} */ code) {
  return /** @type {Record<string, string>} */ ({
    no_such_room: "No open room has that code: it may have closed, or its game has already started.",
    own_room: "That is your own room: send its code or link to the person you want to play.",
    no_such_game: "That game is not being played any more.",
    no_such_seek: "That player is no longer looking for a game.",
    own_seek: "That is your own seek.",
    not_your_turn: "It is not your move yet.",
    illegal_move: "That cell is taken.",
    game_over: "The game is over.",
    already_seeking: "You are already looking for an opponent.",
    already_offered: "You have already offered that; wait for an answer.",
    too_late: "Too late to abort: both sides have moved.",
    too_early: "Too early: a draw can be offered once both sides have moved (abort the game before that), and a game claimed once your opponent has been away long enough.",
    not_away: "Your opponent is here (or is the AI): there is nothing to claim.",
    no_offer: "There is no offer to decline or withdraw.",
    no_takeback: "No takeback here: the game is rated, or you have not moved yet.",
    not_a_player: "Only the game's players and watchers can do that.",
    rate_limited: "Too many requests at once; wait a moment and try again.",
    limit_reached: "You have as many games or rooms open as one player may.",
    bad_name: "That name cannot be used: 1 to 24 characters, with something visible.",
    bad_chat: "That message cannot be sent: it is empty or longer than 280 characters.",
    bad_clock: "That clock is outside what the server allows.",
    server_full: "The server is full just now; try again in a moment.",
    shutting_down: "The server is restarting; try again in a moment.",
    internal: "Something went wrong on the server; nothing was changed.",
    game_paused: "The game is paused for a moment while the site reconnects; try again shortly.",
    own_player: "That is you.",
    blocked: "One of you has blocked the other.",
    muted: "The server's operator has muted you for now; the message says until when.",
    banned: "You are banned from this server.",
    bad_report: "Say in a few words (at most 500 characters) what happened.",
    reserved_name: "That name is reserved; choose another.",
    account_name: "An account's name is its username: it cannot be changed.",
    not_an_account: "Rated games are between registered players: sign up (at the top of the page) to play one.",
  }[code] ?? "The server refused that.");
}
