// @ts-check
/**
 * The player's records: "My games" (every variant at once or one, filtered by result, each
 * game's date, Won, Lost or Drawn in colour and the rating change, and a chart of a variant's
 * rating over time) and the leaderboard (a view of its own with a tab per variant).
 */

import { playerMenu } from "./moderation.js";
import { el, nameLink, plural } from "./views.js";

const VARIANT_NAMES = ["classic", "four", "cube", "qubic"];
const SVG = "http://www.w3.org/2000/svg";

/**
 * Tabs for the variants; `current` is selected, `choose` is called with the one clicked.
 * @param {string} id
 * @param {string} current
 * @param {(variant: string) => void} choose
 */
export function variantTabs(id, current, choose, all = false) {
  return el("div", { class: "tabs", role: "tablist", "aria-label": "variant", id },
    ...[...(all ? ["all"] : []), ...VARIANT_NAMES].map((variant) => el("button", {
      type: "button", role: "tab", "data-variant": variant,
      "aria-selected": String(variant === current),
      onclick: () => choose(variant),
    }, variant === "all" ? "all variants" : variant)));
}

/** How a finished game went for `player`: "won", "lost", "drawn" or "aborted". */
export function outcome(/** @type {any} */ game, /** @type {number | null} */ player) {
  const { winner, reason } = game.result;
  if (!winner) return reason === "aborted" ? "aborted" : "drawn";
  return game[winner].player === player ? "won" : "lost";
}

/** How a game ended, in a few words: "four in a row", "on time". */
export function how(/** @type {any} */ game) {
  return /** @type {Record<string, string>} */ ({
    line: game.variant === "four" || game.variant === "qubic" ? "four in a row" : "three in a row",
    draw: "board full", resign: "resignation", timeout: "on time", abandon: "abandoned",
    aborted: "aborted", agreement: "agreed",
  })[game.result.reason] ?? game.result.reason;
}

const OUTCOMES = [["all", "any result"], ["won", "won"], ["lost", "lost"], ["drawn", "drawn"]];

/** A date and time as the player's browser writes them. */
export function when(/** @type {number} */ ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** "+12", "−30", or "" for an unrated game. */
function change(/** @type {any} */ seat) {
  if (seat?.rating_change === undefined) return "";
  const c = seat.rating_change;
  return c >= 0 ? `+${c}` : `−${-c}`;
}

/**
 * A line chart of `points` ([time, rating] pairs, oldest first), as SVG.
 * @param {[number, number][]} points
 */
export function ratingChart(points) {
  const width = 600;
  const height = 200;
  const pad = 30;
  // Room on the left for four digits.
  const left = 52;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("id", "rating-chart");
  const ratings = points.map(([, r]) => r);
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const x = (/** @type {number} */ i) => left + (points.length > 1 ? (i * (width - left - pad)) / (points.length - 1) : (width - left - pad) / 2);
  const y = (/** @type {number} */ r) => height - pad - ((r - low) * (height - 2 * pad)) / (high - low);
  const title = document.createElementNS(SVG, "title");
  title.textContent = `Rating over ${points.length} rated games: from ${ratings[0]} to ${ratings[ratings.length - 1]}`;
  svg.append(title);
  for (const r of [low + 20, high - 20]) {
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(left - 8));
    label.setAttribute("text-anchor", "end");
    label.setAttribute("y", String(y(r) + 4));
    label.setAttribute("class", "axis");
    label.textContent = String(r);
    svg.append(label);
  }
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.map(([, r], i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "));
  line.setAttribute("class", "line");
  svg.append(line);
  points.forEach(([, r], i) => {
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(r).toFixed(1));
    dot.setAttribute("r", "4");
    dot.setAttribute("class", "dot");
    svg.append(dot);
  });
  return svg;
}

/**
 * The rating of `player` after each rated game among `games` (newest first, as `history` lists
 * them), oldest first, starting with the rating going into the first: the chart's points.
 * @param {any[]} games
 * @param {number | null} player
 * @returns {[number, number][]}
 */
export function ratingPoints(games, player) {
  const mine = (/** @type {any} */ g) => (g.x.player === player ? g.x : g.o);
  const rated = games.filter((g) => g.rated && mine(g).rating !== undefined);
  /** @type {[number, number][]} */
  const points = rated.map((g) => [g.ended_ms, mine(g).rating + (mine(g).rating_change ?? 0)]).reverse();
  if (points.length) points.unshift([rated[rated.length - 1].started_ms, mine(rated[rated.length - 1]).rating]);
  return points;
}

/**
 * "My games": every variant or one (`state.historyVariant`, "all" for every one), filtered by
 * result (`state.recordsOutcome`); a variant's chart of the rating.
 * @param {any} state the page's state (history, player, historyVariant, recordsOutcome)
 * @param {any} actions the page's actions (replay, lobby, render, send, player)
 */
export function historyView(state, actions) {
  const variant = state.historyVariant;
  const filter = state.recordsOutcome ?? "all";
  const all = state.history.filter((/** @type {any} */ g) => variant === "all" || g.variant === variant);
  const games = all.filter((/** @type {any} */ g) => filter === "all" || outcome(g, state.player) === filter);
  const mine = (/** @type {any} */ g) => (g.x.player === state.player ? g.x : g.o);
  const points = variant === "all" ? [] : ratingPoints(all, state.player);
  const chart = variant === "all" ? el("p", { class: "dim" }, "Choose a variant to see the chart of your rating in it.")
    : points.length > 1 ? ratingChart(points) : el("p", { class: "dim" }, "No rated games in this variant yet: the chart of your rating starts with the first.");
  const name = variant === "all" ? "all variants" : variant;
  return el("div", { class: "panel records", "data-key": "history" },
    el("h2", {}, `My games · ${name}`),
    el("div", { class: "filters" },
      variantTabs("history-tabs", variant, (v) => { state.historyVariant = v; actions.render(); }, true),
      el("label", {}, "Result ", el("select", { id: "history-outcome", onchange: (event) => {
        state.recordsOutcome = /** @type {HTMLSelectElement} */ (event.target).value;
        actions.render();
      } }, ...OUTCOMES.map(([value, text]) => el("option", { value, selected: value === filter }, text))))),
    chart,
    games.length ? el("table", { class: "history" },
      el("thead", {}, el("tr", {}, ...["Date", "Game", "Result", "Rating", ""].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, ...games.map((/** @type {any} */ game) => {
        const result = outcome(game, state.player);
        return el("tr", { "data-key": `history-${game.game}`, "data-outcome": result },
          el("td", {}, when(game.ended_ms)),
          el("td", {}, `#${game.game} ${game.variant}: `, nameLink(game.x, true), " vs ", nameLink(game.o, true), ` · ${plural(game.moves, "move")} `,
            playerMenu(game.x.player === state.player ? game.o : game.x, `history-${game.game}`, game.game, actions)),
          el("td", {}, el("span", { class: "outcome", "data-outcome": result }, result[0].toUpperCase() + result.slice(1)), ` · ${how(game)}`),
          el("td", { class: "rating-change" }, change(mine(game))),
          el("td", {}, el("button", { type: "button", "data-replay": String(game.game), "aria-label": `Replay game ${game.game}`, onclick: () => actions.replay(game.game) }, "Replay")));
      })))
      : el("p", { class: "dim", id: "history-none" }, state.history.length ? `No ${filter === "all" ? "" : `${filter} `}games ${variant === "all" ? "" : `of ${variant} `}here yet.` : "No finished games yet."),
    el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"));
}

/**
 * The leaderboard of `state.recordsVariant`.
 * @param {any} state the page's state (leaderboard, recordsVariant)
 * @param {any} actions the page's actions (leaderboard, lobby, send, render, player)
 */
export function leaderboardView(state, actions) {
  const variant = state.recordsVariant;
  return el("div", { class: "panel records", "data-key": "leaderboard" },
    el("h2", { id: "leaderboard-title" }, `Leaderboard · ${variant}`),
    variantTabs("leaderboard-tabs", variant, (v) => actions.leaderboard(v)),
    state.leaderboard.length ? el("ol", { id: "leaderboard-list" }, ...state.leaderboard.map((/** @type {any} */ p) =>
      el("li", {}, nameLink(p, true), ` (${plural(p.games, "game")}: ${p.wins} won, ${p.draws} drawn, ${p.losses} lost) `,
        playerMenu(p, `leaderboard-${p.player}`, null, actions))))
      : el("p", { class: "dim" }, `Nobody has played a rated ${variant} game yet.`),
    el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"));
}
