// @ts-check
/**
 * The engines' league: its table (a view of its own with a tab per variant, followed while it
 * is shown, so that each game's end redraws it), the game being played to watch, the next
 * pairings, and each level's rating as the play panel shows it beside the AI's level.
 */

import { variantTabs } from "./records.js";
import { el, plural } from "./views.js";

/** An entrant as a pairing names it: "medium", or a bot by the name on its line of `table`. */
function entrant(/** @type {any} */ who, /** @type {any} */ table) {
  if (who?.level) return who.level;
  const line = who?.bot === undefined ? undefined : table?.standings.find((/** @type {any} */ s) => s.entrant.bot === who.bot);
  return line ? line.name : "?";
}

/** Points as the table writes them: "12½", "½", "0". */
export function pointsText(/** @type {number} */ points) {
  const whole = Math.floor(points);
  const half = points - whole >= 0.5 ? "½" : "";
  return whole || !half ? `${whole}${half}` : half;
}

/**
 * The league table of `state.leagueVariant`, as the server last sent it.
 * @param {any} state the page's state (leagues, leagueVariant)
 * @param {any} actions the page's actions (league, watch, lobby)
 */
export function leagueView(state, actions) {
  const variant = state.leagueVariant;
  const table = state.leagues.get(variant);
  const body = table === undefined ? el("p", { class: "dim" }, "Fetching the table…")
    : table === null ? el("p", { class: "dim", id: "league-none" }, `This server runs no league on ${variant}.`)
    : leagueTable(table, actions);
  return el("div", { class: "panel records", "data-key": "league" },
    el("h2", { id: "league-title" }, `Engines' league · ${variant}`),
    el("p", { class: "dim" }, "The AI levels (and bots that enter) play each other round after round, as the war games: 1 point a win, ½ a draw, and a rating from the results on the players' scale."),
    variantTabs("league-tabs", variant, (v) => actions.league(v)),
    body,
    el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"));
}

/** The table itself, the game being played and the pairings to come. */
function leagueTable(/** @type {any} */ table, /** @type {any} */ actions) {
  const rows = table.standings.map((/** @type {any} */ s, /** @type {number} */ i) => el("tr", { "data-entrant": entrant(s.entrant, table) },
    el("td", {}, String(i + 1)), el("th", { scope: "row" }, s.name), el("td", {}, String(s.games)),
    el("td", {}, String(s.wins)), el("td", {}, String(s.draws)), el("td", {}, String(s.losses)),
    el("td", { class: "points" }, pointsText(s.points)), el("td", {}, `${s.rating} ± ${2 * s.deviation}`)));
  const head = ["#", "entrant", "games", "won", "drawn", "lost", "points", "rating"].map((h) => el("th", { scope: "col" }, h));
  const playing = table.playing;
  return el("div", { id: "league" },
    el("p", { id: "league-games" }, `${plural(table.games, "game")} played; a round is ${table.round_games}, and the ratings move as each closes.`),
    el("table", { id: "league-table" }, el("thead", {}, el("tr", {}, ...head)), el("tbody", {}, ...rows)),
    playing ? el("p", { id: "league-playing" }, `Now: ${entrant(playing.x, table)} (X) against ${entrant(playing.o, table)} (O) `,
      el("button", { type: "button", id: "league-watch", onclick: () => actions.watch(playing.game) }, `Watch #${playing.game}`)) : null,
    table.next.length ? el("p", { id: "league-next", class: "dim" }, `Next: ${table.next.map((/** @type {any} */ p) => `${entrant(p.x, table)}–${entrant(p.o, table)}`).join(", ")}`) : null);
}

/**
 * How the league rates `level` on `variant`, in words ("medium plays like 1570 ± 116"), or null
 * while the table is not known.
 * @param {any} state the page's state (leagues)
 * @param {string} variant
 * @param {string} level
 */
export function levelRating(state, variant, level) {
  const line = state.leagues.get(variant)?.standings.find((/** @type {any} */ s) => s.entrant.level === level);
  return line ? `${level} plays like ${line.rating} ± ${2 * line.deviation} on ${variant}, as the engines' league rates it` : null;
}
