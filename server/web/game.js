// @ts-check
/**
 * A game on screen: the board, the seats with their clocks and ratings, the status line, the
 * offers, the game-over banner with the next steps (rematch, a new opponent, analysis, the
 * lobby), the moves and the chat. Built fresh from the game's state; the page morphs it into what
 * is shown, so the focused cell and the status line are the same elements from move to move.
 */

import { boardView, cellName, coordsSwitch } from "./board.js";
import { playerMenu, unmuted } from "./moderation.js";
import { el, moveList, nameLink } from "./views.js";

/**
 * What the game view needs from the page: sending requests and the page's own actions.
 * @typedef {{send: (request: any) => number, lobby: () => void, analyse: (game: number) => void,
 *   online: boolean, unsent: boolean, render: () => void, player: number | null,
 *   newOpponent: (game: any) => void, backToArena: () => void, chatTab: "players" | "spectators",
 *   setChatTab: (tab: "players" | "spectators") => void}} GameActions
 */

/** How a game ended, in words: "three in a row", "on time". */
export function howText(/** @type {any} */ result, /** @type {string} */ variant) {
  return {
    line: variant === "four" || variant === "qubic" ? "four in a row" : "three in a row",
    draw: "the board is full", resign: "by resignation", timeout: "on time",
    abandon: "the opponent left", aborted: "aborted", agreement: "by agreement",
  }[/** @type {string} */ (result.reason)] ?? result.reason;
}

/** Who won, for someone watching: "guest-12 (X) wins", "AI (perfect) as O wins", "Draw". */
export function winnerText(/** @type {any} */ result, /** @type {any} */ game) {
  if (!result.winner) return result.reason === "aborted" ? "No result" : "Draw";
  const seat = game[result.winner];
  const mark = result.winner.toUpperCase();
  if (!seat) return `${mark} wins`;
  return seat.level ? `AI (${seat.level}) as ${mark} wins` : `${seat.name} (${mark}) wins`;
}

/** The headline of a finished game from the point of view of `you` (a mark or null). */
export function headline(/** @type {any} */ game) {
  const { result, you } = game;
  if (!you || !result.winner) return winnerText(result, game);
  return result.winner === you ? "You won" : "You lost";
}

/** "+12" or "−162". */
function signed(/** @type {number} */ change) {
  return change >= 0 ? `+${change}` : `−${-change}`;
}

/**
 * A seat: its mark, who sits there (with mute, block and report for another player), the rating
 * (the new one and the change after a rated game).
 */
function seatView(/** @type {any} */ game, /** @type {"x" | "o"} */ mark, /** @type {GameActions} */ actions) {
  const seat = game[mark];
  const after = game.ratings?.[mark];
  const rating = after
    ? el("span", { class: "rating", "data-rating": mark }, ` ${after.rating} `,
      el("span", { class: after.change >= 0 ? "up" : "down" }, `(${signed(after.change)})`))
    : null;
  const text = nameLink(seat, !after);
  const won = game.result?.winner === mark;
  return el("div", { class: `seat${game.to_move === mark ? " to-move" : ""}${won ? " winner" : ""}`, "data-seat": mark },
    el("span", { class: `mark mark-${mark}` }, mark.toUpperCase()), " ",
    text, rating, game.you === mark ? " (you)" : "", seat.connected === false ? " (offline)" : "", " ",
    game.you === mark ? null : playerMenu(seat, `seat-${mark}`, game.game, actions), " ",
    game.clock ? el("span", { class: "clock", "data-clock": mark }, "") : null);
}

/** The line telling whose move it is, or how the game ended. */
export function statusText(/** @type {any} */ game) {
  if (game.result) return `${headline(game)}, ${howText(game.result, game.variant)}`;
  if (game.you && game.to_move === game.you) return "Your move";
  const seat = game[game.to_move];
  return `${seat ? (seat.level ? `AI (${seat.level})` : seat.name) : "?"} to move (${String(game.to_move).toUpperCase()})`;
}

/** The banner at the end of a game: who won and how, the line, the rating change, what next. */
function gameOver(/** @type {any} */ game, /** @type {GameActions} */ actions) {
  const { result, you } = game;
  const line = result.reason === "line" && result.cells?.length
    ? el("p", {}, "Winning line: ", el("strong", {}, result.cells.map((/** @type {number} */ c) => cellName(game.variant, c)).join(" · ")))
    : null;
  const mine = you && game.ratings ? game.ratings[you] : null;
  const rating = mine
    ? el("p", { id: "rating-change" }, `Your rating: ${mine.rating} (${signed(mine.change)})`)
    : null;
  const tone = !you || !result.winner ? "even" : result.winner === you ? "won" : "lost";
  const offered = game.rematchBy && game.rematchBy !== you;
  const asked = you && game.rematchBy === you;
  const by = offered ? game[game.rematchBy] : null;
  return el("section", { id: "game-over", class: `game-over ${tone}`, "aria-labelledby": "game-over-title", "data-feedback": "game-over" },
    el("h3", { id: "game-over-title" }, headline(game)),
    el("p", {}, howText(result, game.variant)),
    line, rating,
    offered ? el("p", { class: "offer", id: "rematch-offer" }, `${by?.name ?? "Your opponent"} offers a rematch`) : null,
    asked ? el("p", { class: "offer", id: "rematch-offer" }, "You offered a rematch") : null,
    game.rematchNote ? el("p", { id: "rematch-note", class: "offer", role: "status" }, game.rematchNote) : null,
    game.kind === "war" && !you ? el("p", { id: "next-war", class: "dim" }, "The next war game follows in a moment.") : null,
    // An arena pairs its players again by itself: no rematch, back to its standings in a moment.
    game.arena ? el("p", { id: "arena-next", class: "dim" }, `Back to the standings of ${game.arena} in a moment.`) : null,
    el("div", { class: "row" },
      game.arena ? button("back-to-arena", "Back to the arena", () => actions.backToArena()) : null,
      you && !game.arena ? button("rematch", offered ? "Accept rematch" : asked ? "Rematch offered…" : "Rematch",
        () => actions.send({ type: "rematch", game: game.game }), asked ? { disabled: "" } : {}) : null,
      offered && you ? button("decline-rematch", "Decline", () => actions.send({ type: "decline", game: game.game })) : null,
      asked ? button("cancel-rematch", "Cancel offer", () => actions.send({ type: "cancel_offer", game: game.game })) : null,
      you && !game.arena ? button("new-opponent", "New opponent", () => actions.newOpponent(game)) : null,
      button("replay", "Analyse", () => actions.analyse(game.game)),
      button("lobby", "Back to the lobby", () => actions.lobby())));
}

/**
 * The offer waiting for an answer, in the first person for the one who made it (with Cancel),
 * with Accept and Decline for the other player, and plainly for a watcher.
 */
function offerLine(/** @type {any} */ game, /** @type {GameActions} */ actions) {
  const { by, offer } = game.offer;
  const you = game.you ?? null;
  const draw = offer === "draw";
  if (you && you === by) {
    return el("p", { class: "offer", id: "offer" },
      draw ? "You offered a draw " : "You asked to take back your move ",
      button("cancel-offer", "Cancel", () => actions.send({ type: "cancel_offer", game: game.game })));
  }
  const name = game[by]?.name ?? "Your opponent";
  return el("p", { class: "offer", id: "offer" },
    draw ? `${name} offers a draw ` : `${name} asks to take back their move `,
    you ? button("accept-offer", "Accept", () => actions.send({ type: draw ? "offer_draw" : "takeback", game: game.game })) : null,
    you ? button("decline-offer", "Decline", () => actions.send({ type: "decline", game: game.game })) : null);
}

/** What is left of `away`'s time (grace or claim), in ms, at `now`. */
export function awayLeft(/** @type {any} */ away, /** @type {"grace_ms" | "claim_ms"} */ what, /** @type {number} */ now) {
  return Math.max(0, away[what] - (now - away.at));
}

/** "0:25": a countdown in whole seconds, rounded up. */
function countdown(/** @type {number} */ ms) {
  const secs = Math.ceil(ms / 1000);
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
}

/**
 * The players away from a live game, each with a countdown to the end of their grace; for the
 * player left behind, the claim: a countdown, then "Claim the win" and "Call it a draw".
 * The page's tick keeps the countdowns current and draws again when a claim becomes possible.
 */
export function awayView(/** @type {any} */ game, /** @type {GameActions} */ actions) {
  const now = performance.now();
  const lines = [];
  for (const mark of ["x", "o"]) {
    const away = game.away?.[mark];
    if (!away || game[mark]?.connected !== false) continue;
    const name = game.you === mark ? "You" : game[mark]?.name ?? mark.toUpperCase();
    lines.push(el("p", { class: "away", "data-away": mark },
      `${name} left the game: `, el("span", { "data-countdown": `${mark}-grace` }, countdown(awayLeft(away, "grace_ms", now))),
      " to come back, or they lose."));
    if (game.you && game.you !== mark) {
      const wait = awayLeft(away, "claim_ms", now);
      game.claimReady = wait === 0;
      lines.push(wait > 0
        ? el("p", { id: "claim-hint", class: "hint" }, "You can claim the game in ",
          el("span", { "data-countdown": `${mark}-claim` }, countdown(wait)), ".")
        : el("p", { id: "claim-hint", class: "hint" }, "You can claim the win, call it a draw, or wait for them."));
      const disabled = wait > 0 ? { disabled: "", "aria-describedby": "claim-hint" } : {};
      lines.push(el("div", { class: "row", id: "claim" },
        button("claim-win", "Claim the win", () => actions.send({ type: "claim", game: game.game, outcome: "win" }), disabled),
        button("claim-draw", "Call it a draw", () => actions.send({ type: "claim", game: game.game, outcome: "draw" }), disabled)));
    }
  }
  return lines.length ? el("section", { id: "away", "aria-label": "players away", "data-feedback": "away" }, ...lines) : null;
}

/** Keeps the away countdowns on screen current; true when a claim has just become possible. */
export function awayTick(/** @type {any} */ game, /** @type {Element} */ root) {
  if (!game.away || game.result) return false;
  const now = performance.now();
  let redraw = false;
  for (const mark of ["x", "o"]) {
    const away = game.away[mark];
    if (!away) continue;
    const grace = root.querySelector(`[data-countdown="${mark}-grace"]`);
    if (grace) grace.textContent = countdown(awayLeft(away, "grace_ms", now));
    const claim = root.querySelector(`[data-countdown="${mark}-claim"]`);
    if (claim) claim.textContent = countdown(awayLeft(away, "claim_ms", now));
    if (game.you && game.you !== mark && !game.claimReady && awayLeft(away, "claim_ms", now) === 0) redraw = true;
  }
  return redraw;
}

/** A button with an id. */
export function button(/** @type {string} */ id, /** @type {string} */ text, /** @type {() => void} */ action, /** @type {Record<string, string>} */ extra = {}) {
  return el("button", { id, type: "button", onclick: action, ...extra }, text);
}

/**
 * The whole game view.
 * @param {any} game
 * @param {GameActions} actions
 */
export function gameView(game, actions) {
  const you = game.you ?? null;
  const live = !game.result;
  const myTurn = live && you && game.to_move === you;
  const board = boardView({
    key: `game-${game.game}`, variant: game.variant, board: game.board, winning: game.result?.cells ?? [],
    last: game.moves.length ? game.moves[game.moves.length - 1] : null,
    // Offline, a tap on a cell is answered on the board: the move was not sent.
    playable: Boolean(myTurn) || (!actions.online && live && Boolean(you)),
    onPlay: (cell) => actions.send({ type: "move", game: game.game, cell }),
  });
  const controls = [];
  if (you && live) {
    if (game.confirmResign) {
      controls.push(button("resign-confirm", "Yes, resign", () => { game.confirmResign = false; actions.send({ type: "resign", game: game.game }); }, { class: "danger", "data-autofocus": "true" }));
      controls.push(button("resign-cancel", "Keep playing", () => { game.confirmResign = false; actions.render(); }));
    } else {
      controls.push(button("resign", "Resign", () => { game.confirmResign = true; actions.render(); }));
    }
    // A draw can be offered once both sides have moved (before that, the game is aborted).
    const early = game.moves.length < 2;
    // One's own offer waiting is said above with its Cancel: its button rests meanwhile.
    const waiting = (/** @type {string} */ kind) => game.offer?.by === you && game.offer?.offer === kind;
    controls.push(button("offer-draw", "Offer draw", () => actions.send({ type: "offer_draw", game: game.game }),
      early ? { disabled: "", "aria-describedby": "draw-hint" } : waiting("draw") ? { disabled: "" } : {}));
    // A takeback undoes your own last move: there is none until you have moved.
    const moved = game.moves.length >= (you === "x" ? 1 : 2);
    if (!game.rated) controls.push(button("takeback", "Takeback", () => actions.send({ type: "takeback", game: game.game }), moved && !waiting("takeback") ? {} : { disabled: "" }));
    if (game.moves.length < 2) controls.push(button("abort", "Abort", () => actions.send({ type: "abort", game: game.game })));
  }
  if (live) controls.push(button("lobby", "Lobby", () => actions.lobby()));
  const offer = game.offer && live ? offerLine(game, actions) : null;
  const moves = moveList(game.moves.length, (i) => `${i % 2 ? "O" : "X"} ${cellName(game.variant, game.moves[i])}`);
  return el("div", { class: "game", "data-key": `game-${game.game}`, "data-game": String(game.game) },
    el("h2", {}, `Game #${game.game} · ${game.variant}${game.rated ? " · rated" : ""}${game.kind === "war" ? " · war game" : ""}`),
    el("div", { class: "layout" },
      el("div", { class: "board-box", "data-feedback": "board" }, board, coordsSwitch(actions.render),
        !actions.online && live && you ? el("p", { id: "offline", class: "offline", role: "alert" },
          actions.unsent ? "Offline: your move was not sent. Reconnecting…" : "Offline: reconnecting…") : null),
      el("aside", {},
        seatView(game, "x", actions), seatView(game, "o", actions),
        el("p", { id: "game-status", class: game.result ? "over" : myTurn ? "your-move" : "" }, statusText(game)),
        game.result ? gameOver(game, actions) : null,
        offer,
        live ? awayView(game, actions) : null,
        game.note && live ? el("p", { id: "game-note", class: "offer" }, game.note) : null,
        controls.length ? el("div", { "data-feedback": "game-controls", "data-key": "game-controls-box" },
          el("div", { class: "row", id: "game-controls" }, ...controls),
          you && live && game.moves.length < 2 ? el("p", { id: "draw-hint", class: "hint" }, "A draw can be offered once both sides have moved; until then, Abort ends the game unplayed.") : null) : null,
        el("p", { class: "dim" }, `${game.watchers} watching`),
        moves,
        chatBox(game, actions))));
}

function chatBox(/** @type {any} */ game, /** @type {GameActions} */ actions) {
  const watcher = !game.you;
  const spectators = watcher && actions.chatTab === "spectators";
  const lines = unmuted(game.chat).filter((/** @type {any} */ line) => Boolean(line.mark) !== spectators);
  const tabs = watcher ? el("div", { class: "tabs", role: "tablist", "aria-label": "chat" },
    el("button", { type: "button", role: "tab", "aria-selected": String(!spectators), onclick: () => actions.setChatTab("players") }, "Players"),
    el("button", { type: "button", role: "tab", "aria-selected": String(spectators), onclick: () => actions.setChatTab("spectators") }, "Spectators")) : null;
  const send = () => {
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById("chat-input"));
    const text = input?.value.trim();
    if (!input || !text) return;
    actions.send({ type: "chat", game: game.game, text });
    input.value = "";
  };
  return el("section", { class: "chat", "aria-label": "chat", "data-feedback": "chat" },
    tabs,
    el("ul", { id: "chat-lines" }, ...lines.map((/** @type {any} */ line, /** @type {number} */ i) => el("li", {},
      el("b", {}, nameLink(line)), " ", playerMenu({ player: line.player, name: line.from }, `chat-${i}`, game.game, actions), ": ", line.text))),
    el("div", { class: "row" },
      el("input", { id: "chat-input", maxlength: "280", "aria-label": watcher ? "message to the spectators" : "chat message", autocomplete: "off",
        placeholder: watcher ? "Say something to the spectators" : "Say something to your opponent",
        onkeydown: (event) => { if (/** @type {KeyboardEvent} */ (event).key === "Enter") send(); } }),
      button("chat-send", "Send", send)));
}
