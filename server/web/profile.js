// @ts-check
/**
 * A player's profile (`#profile=ID`), where every name on the page leads: the name (a guest
 * marked as one), when they came and were last seen, their rating and results in each variant,
 * the chart of their rating in one variant, and their latest games, each to replay.
 */

import { how, outcome, ratingChart, ratingPoints, variantTabs, when } from "./records.js";
import { botTag, el, nameLink } from "./views.js";

/** The profile shown: whose, the server's `profile` and `history` replies, the chart's variant. */
export const profile = {
  /** @type {number | null} */ player: null,
  /** @type {any} */ info: null,
  /** @type {any[] | null} */ games: null,
  variant: "classic",
};

/** Asks for `player`'s profile and latest games (unless they are the ones held). */
export function openProfile(/** @type {number} */ player, /** @type {(request: any) => number} */ send) {
  if (profile.player === player && profile.info) return;
  profile.player = player;
  profile.info = null;
  profile.games = null;
  send({ type: "profile", player });
  send({ type: "history", player, limit: 50 });
}

/** Takes a `profile` or `history` reply for the profile shown; says whether it was one. */
export function profileMessage(/** @type {any} */ message) {
  if (message.player !== profile.player) return false;
  if (message.type === "profile") profile.info = message;
  else if (message.type === "history") profile.games = message.games;
  else return false;
  return true;
}

/**
 * The profile view.
 * @param {any} actions the page's actions (lobby, replay, render)
 */
export function profileView(actions) {
  const info = profile.info;
  if (!info) return el("p", { class: "dim", "data-key": "waiting" }, "Fetching the profile…");
  const games = profile.games ?? [];
  const points = ratingPoints(games.filter((g) => g.variant === profile.variant), info.player);
  return el("div", { class: "panel records profile", "data-key": "profile" },
    el("h2", { id: "profile-name" }, info.bot ? botTag() : null, info.bot ? " " : null, info.name, info.guest ? " " : null,
      info.guest ? el("span", { class: "guest-tag", title: "A guest: no account" }, "guest") : null),
    el("p", { class: "dim" }, `Playing since ${when(info.created_ms)} · last seen ${when(info.last_seen_ms)}`),
    el("table", { id: "profile-ratings" },
      el("thead", {}, el("tr", {}, ...["Variant", "Rating", "Rated games", "Games", "Won", "Drawn", "Lost"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, ...info.variants.map((/** @type {any} */ v) => el("tr", { "data-variant": v.variant },
        el("th", { scope: "row" }, v.variant), el("td", {}, `${v.rating} ±${v.deviation}`),
        ...[v.rated_games, v.games, v.wins, v.draws, v.losses].map((n) => el("td", {}, String(n))))))),
    variantTabs("profile-tabs", profile.variant, (v) => { profile.variant = v; actions.render(); }),
    points.length > 1 ? ratingChart(points) : el("p", { class: "dim" }, `No rated ${profile.variant} games to chart yet.`),
    el("h3", {}, "Latest games"),
    games.length ? el("ul", { id: "profile-games" }, ...games.map((/** @type {any} */ game) => el("li", { "data-key": `profile-game-${game.game}` },
      `${when(game.ended_ms)} · #${game.game} ${game.variant}${game.rated ? " · rated" : ""}: `,
      nameLink(game.x), " vs ", nameLink(game.o), " · ",
      el("span", { class: "outcome", "data-outcome": outcome(game, info.player) }, outcome(game, info.player)), ` · ${how(game)} `,
      el("button", { type: "button", "data-replay": String(game.game), onclick: () => actions.replay(game.game) }, "Replay"))))
      : el("p", { class: "dim" }, games === profile.games ? "No finished games yet." : "Fetching the games…"),
    el("button", { id: "lobby", type: "button", onclick: () => actions.lobby() }, "Lobby"));
}
