// @ts-check
/**
 * Building the page's pieces. Everything a person typed (names, chat, codes) goes in as text
 * (`textContent`, through `el`), never as HTML.
 */

/**
 * Sets `fn` as the element's handler for events of `type` (one listener per type, reading the
 * handler of the moment, so that `morph` can hand a kept element its new handlers).
 * @param {Element} node
 * @param {string} type
 * @param {((event: Event) => void) | undefined} fn
 */
export function on(node, type, fn) {
  const handlers = /** @type {any} */ (node).noughtsOn ??= {};
  if (!(type in handlers)) {
    node.addEventListener(type, (event) => handlers[type]?.(event));
  }
  handlers[type] = fn;
}

/** A node's key: its `data-key`, else its id; matched nodes are kept across redraws. */
function keyOf(/** @type {Node} */ node) {
  return node instanceof Element ? node.getAttribute("data-key") ?? (node.id || null) : null;
}

/**
 * Makes `old`'s children look like `fresh`'s, keeping every element that matches (same tag and
 * key, or same tag in order when unkeyed), so that what the player points at, focuses, selects
 * or types into stays put while only what changed is touched. Form fields keep what the player
 * typed: only attributes are copied, never the `value` or `checked` properties.
 * @param {Element} old
 * @param {Element} fresh
 */
export function morph(old, fresh) {
  const olds = [...old.childNodes];
  /** @type {Map<string, Node>} */
  const keyed = new Map();
  for (const node of olds) {
    const key = keyOf(node);
    if (key) keyed.set(key, node);
  }
  const used = new Set();
  let cursor = 0;
  /** @type {[Node, Node | null][]} */
  const pairs = [...fresh.childNodes].map((node) => {
    const key = keyOf(node);
    let match = null;
    if (key) {
      const found = keyed.get(key);
      if (found && found.nodeName === node.nodeName && !used.has(found)) match = found;
    } else {
      for (let i = cursor; i < olds.length; i++) {
        const candidate = olds[i];
        if (!used.has(candidate) && !keyOf(candidate) && candidate.nodeName === node.nodeName) {
          match = candidate;
          cursor = i + 1;
          break;
        }
      }
    }
    if (match) used.add(match);
    return [node, match];
  });
  for (const node of olds) if (!used.has(node)) node.remove();
  pairs.forEach(([node, match], i) => {
    const kept = match ?? node;
    if (old.childNodes[i] !== kept) old.insertBefore(kept, old.childNodes[i] ?? null);
    if (match) patch(match, node);
  });
}

/** Makes the kept node `old` look like `fresh` (same tag). */
function patch(/** @type {Node} */ old, /** @type {Node} */ fresh) {
  if (!(old instanceof Element) || !(fresh instanceof Element)) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  for (const { name } of [...old.attributes]) {
    if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  const handlers = /** @type {any} */ (fresh).noughtsOn ?? {};
  const had = /** @type {any} */ (old).noughtsOn ?? {};
  for (const type of Object.keys(had)) if (!(type in handlers)) had[type] = undefined;
  for (const [type, fn] of Object.entries(handlers)) on(old, type, fn);
  morph(old, fresh);
}

/**
 * An element with attributes and children; strings become text nodes.
 * @param {string} tag
 * @param {Record<string, string | boolean | ((event: Event) => void)>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === "function") on(node, key.replace(/^on/, ""), value);
    else if (value === true) node.setAttribute(key, "");
    else if (value !== false) node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A clock as m:ss, or s.t under ten seconds. */
export function clockText(/** @type {number} */ ms) {
  if (ms < 10000) return `0:0${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A clock setting as "3+2", or "no clock". */
export function clockSpec(/** @type {any} */ clock) {
  return clock ? `${clock.initial_ms / 60000}+${clock.increment_ms / 1000}` : "no clock";
}

/**
 * A person's name as a link to their profile (`#profile=ID`), with a "guest" tag for a guest, a
 * "BOT" tag before a bot account's, and their rating when `rated` and known; an AI seat's level as
 * text.
 * @param {any} who a seat, seek, chat line or leaderboard entry: `name` (or `from`), `player`, `guest`, `bot`
 * @param {boolean} [rated]
 */
export function nameLink(who, rated = false) {
  if (!who) return "?";
  const rating = rated && who.rating ? ` ${who.rating}` : "";
  const name = who.name ?? who.from ?? who.host;
  if (who.level || who.player === undefined || who.player === null) return `${who.level ? `AI (${who.level})` : name}${rating}`;
  // The tag is part of the link: the whole name, however it wraps, leads to the profile.
  return el("span", { class: "name" },
    el("a", { class: "profile-link", href: `#profile=${who.player}`, "data-profile": String(who.player) },
      who.bot ? botTag() : null, who.bot ? " " : null, name,
      who.guest ? " " : null,
      who.guest ? el("span", { class: "guest-tag", title: "A guest: no account" }, "guest") : null),
    rating);
}

/** The mark before a bot account's name, as lichess shows its bots. */
export function botTag() {
  return el("span", { class: "bot-tag", title: "A bot: a program plays this account" }, "BOT");
}

/** The clock settings offered, as in the terminal client. */
export const CLOCKS = [
  ["no clock", null],
  ["1+0", { initial_ms: 60000, increment_ms: 0 }],
  ["3+2", { initial_ms: 180000, increment_ms: 2000 }],
  ["5+0", { initial_ms: 300000, increment_ms: 0 }],
  ["10+5", { initial_ms: 600000, increment_ms: 5000 }],
];

/**
 * Moves in numbered pairs, read across as people write them: "1. X a1 O b2". Each move is the
 * node (or text) `item` makes of it.
 * @param {number} count how many moves
 * @param {(ply: number) => Node | string} item the move at `ply` (from 0)
 * @param {string} [cls] more classes for the list
 */
export function moveList(count, item, cls = "") {
  const pairs = [];
  for (let i = 0; i < count; i += 2) {
    const n = i / 2 + 1;
    pairs.push(el("li", { "data-key": `pair-${n}` },
      el("span", { class: "n", "aria-hidden": "true" }, `${n}.`),
      el("span", { class: "ply" }, item(i)),
      i + 1 < count ? el("span", { class: "ply" }, item(i + 1)) : null));
  }
  return el("ol", { class: `moves${cls ? ` ${cls}` : ""}`, "aria-label": "moves" }, ...pairs);
}

/** "1 move", "3 moves": `n` and the word, in the singular or the plural. */
export function plural(/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
