// @ts-check
/**
 * The browser client: the lobby, games, chat, history and replays, over the protocol in
 * PROTOCOL.md. One state, changed by the server's messages and the player's clicks, drawn again
 * after each change. Deep links: #room=CODE joins a private room, #game=ID watches a game,
 * #replay=ID replays a finished one.
 */

import { Connection, storedName, storeName } from "./net.js";
import { cellName, renderBoard } from "./board.js";
import { CLOCKS, chosen, clockSpec, clockText, el, resultText, seatText, select } from "./views.js";

/** Uncaught errors and rejections, kept where the browser tests (and anyone curious) look. */
const errors = /** @type {string[]} */ ([]);
/** @type {any} */ (window).noughtsErrors = errors;
window.addEventListener("error", (event) => errors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => errors.push(String(event.reason)));

const state = {
  /** @type {number | null} */ player: null,
  /** @type {Map<number, any>} */ seeks: new Map(),
  /** @type {Map<string, any>} */ rooms: new Map(),
  /** @type {Map<number, any>} */ listed: new Map(),
  /** @type {Map<number, any>} */ games: new Map(),
  /** @type {number | null} */ current: null,
  /** @type {"lobby" | "game" | "history" | "replay"} */ view: "lobby",
  /** @type {"players" | "spectators"} */ chatTab: "players",
  /** @type {any} */ seeking: null,
  /** @type {string | null} */ room: null,
  /** @type {any[]} */ history: [],
  /** @type {any} */ replay: null,
  /** @type {any[]} */ leaderboard: [],
  deepLinkDone: false,
};

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const statusLine = /** @type {HTMLElement} */ (document.getElementById("status"));
const notice = /** @type {HTMLElement} */ (document.getElementById("notice"));
const nameInput = /** @type {HTMLInputElement} */ (document.getElementById("name"));

const net = new Connection(onMessage, (status) => {
  statusLine.textContent = status;
  statusLine.dataset.status = status;
});

nameInput.value = storedName();
nameInput.addEventListener("change", () => {
  const name = nameInput.value.trim();
  if (!name) return;
  storeName(name);
  // A player keeps the name it started with: a new name is a new player.
  localStorage.removeItem("noughts.token");
  net.reconnect();
});

window.addEventListener("hashchange", () => {
  state.deepLinkDone = false;
  followDeepLink();
});

/** @param {string} text */
function say(text) {
  notice.textContent = text;
}

/** @param {any} message */
function onMessage(message) {
  switch (message.type) {
    case "welcome":
      state.player = message.player;
      nameInput.value = message.name;
      net.send({ type: "subscribe_lobby" });
      followDeepLink();
      break;
    case "error":
      say(`${message.code}: ${message.message}`);
      if (message.code === "no_such_room") state.room = null;
      break;
    case "lobby":
      state.seeks = new Map(message.seeks.map((/** @type {any} */ s) => [s.seek, s]));
      state.rooms = new Map(message.rooms.map((/** @type {any} */ r) => [r.code, r]));
      state.listed = new Map(message.games.map((/** @type {any} */ g) => [g.game, g]));
      break;
    case "lobby_game": state.listed.set(message.game.game, message.game); break;
    case "lobby_game_removed": state.listed.delete(message.game); break;
    case "lobby_room": state.rooms.set(message.room.code, message.room); break;
    case "lobby_room_removed": state.rooms.delete(message.code); break;
    case "lobby_seek": state.seeks.set(message.seek.seek, message.seek); break;
    case "lobby_seek_removed": state.seeks.delete(message.seek); break;
    case "seeking": state.seeking = message; break;
    case "room_created": state.room = message.code; break;
    case "game_state": onGameState(message); break;
    case "history": state.history = message.games; state.view = "history"; break;
    case "game_record": state.replay = { record: message, ply: message.moves.length }; state.view = "replay"; break;
    case "leaderboard": state.leaderboard = message.players; break;
    case "ok": case "pong": return;
    default: if (!onUpdate(message)) return;
  }
  // The lobby changes all the time (war games move every second): redraw for it only when it is
  // on screen, so what the player is looking at stays put.
  if (message.type.startsWith("lobby") && state.view !== "lobby") return;
  render();
}

/** A game's whole state: shown if it is ours or asked for. */
function onGameState(/** @type {any} */ message) {
  message.receivedAt = performance.now();
  state.games.set(message.game, message);
  state.seeking = null;
  state.room = null;
  if (message.you || state.current === null || state.current === message.game || state.view !== "game") {
    state.current = message.game;
    state.view = "game";
  }
}

/** An update to a game held: applied if newer than what is held; true if it is on screen. */
function onUpdate(/** @type {any} */ message) {
  const game = state.games.get(message.game);
  if (!game || message.seq === undefined || message.seq <= game.seq) return false;
  game.seq = message.seq;
  switch (message.type) {
    case "moved":
      game.board = message.board;
      game.moves.push(message.cell);
      game.to_move = message.to_move ?? null;
      game.offer = null;
      setClocks(game, message.clocks);
      break;
    case "game_over":
      game.board = message.board;
      game.result = message.result;
      game.ratings = message.ratings ?? null;
      game.to_move = null;
      game.offer = null;
      setClocks(game, message.clocks ?? (game.clocks ? { ...game.clocks, running: null } : null));
      break;
    case "presence": game[message.mark].connected = message.connected; break;
    case "watchers": game.watchers = message.count; break;
    case "chat": game.chat.push({ from: message.from, mark: message.mark, text: message.text }); break;
    case "rematch_offered": game.rematchBy = message.by; break;
    case "offered": game.offer = { by: message.by, offer: message.offer }; break;
    case "declined": game.offer = null; say(`the ${message.offer} offer was declined`); break;
    case "taken_back":
      game.board = message.board;
      game.moves = message.moves;
      game.to_move = message.to_move;
      game.offer = null;
      setClocks(game, message.clocks);
      break;
  }
  return state.view === "game" && state.current === message.game;
}

function setClocks(/** @type {any} */ game, /** @type {any} */ clocks) {
  if (clocks) {
    game.clocks = clocks;
    game.receivedAt = performance.now();
  }
}

/** What a deep link in the address asks for, once connected. */
function followDeepLink() {
  if (state.deepLinkDone || state.player === null) return;
  state.deepLinkDone = true;
  const link = new URLSearchParams(location.hash.slice(1));
  const room = link.get("room");
  const game = Number(link.get("game"));
  const replay = Number(link.get("replay"));
  if (room) net.send({ type: "join_room", code: room });
  else if (game) net.send({ type: "watch", game, ...(link.get("code") ? { code: link.get("code") } : {}) });
  else if (replay) net.send({ type: "game_record", game: replay });
}

// ——— Drawing ———

function render() {
  // What the player was typing, choosing and pointing at survives the redraw.
  const fields = [...main.querySelectorAll("input[id], select[id]")].map((node) => {
    const field = /** @type {HTMLInputElement} */ (node);
    return [field.id, field.type === "checkbox" ? field.checked : field.value];
  });
  const focusedId = document.activeElement instanceof HTMLElement ? document.activeElement.id : "";
  const view = state.view === "game" && state.current !== null && state.games.has(state.current)
    ? gameView(state.games.get(state.current))
    : state.view === "history" ? historyView()
    : state.view === "replay" && state.replay ? replayView()
    : lobbyView();
  main.replaceChildren(view);
  for (const [id, value] of fields) {
    const field = /** @type {HTMLInputElement | null} */ (document.getElementById(String(id)));
    if (!field) continue;
    if (typeof value === "boolean") field.checked = value;
    else field.value = value;
  }
  if (focusedId) document.getElementById(focusedId)?.focus();
  tick();
}

function lobbyView() {
  const variants = [["classic", "classic"], ["four", "four"], ["cube", "cube"], ["qubic", "qubic"]];
  const play = el("section", { class: "panel", "aria-label": "play" },
    el("h2", {}, "Play"),
    select("Variant", /** @type {[string, any][]} */ (variants), "variant"),
    select("Clock", /** @type {[string, any][]} */ (CLOCKS), "clock"),
    el("label", {}, el("input", { type: "checkbox", id: "rated" }), " rated"),
    el("div", { class: "row" },
      el("button", { id: "quick-match", type: "button", onclick: () => seek() }, "Quick match"),
      state.seeking ? el("span", {}, "Looking for an opponent… ",
        el("button", { type: "button", onclick: () => { net.send({ type: "cancel_seek" }); state.seeking = null; render(); } }, "Cancel")) : null),
    el("div", { class: "row" },
      select("AI level", [["easy", "easy"], ["medium", "medium"], ["hard", "hard"], ["perfect", "perfect"], ["random", "random"]], "level"),
      select("Side", [["X (first)", "x"], ["O", "o"], ["random", "random"]], "side"),
      el("button", { id: "play-ai", type: "button", onclick: () => playAi() }, "Play the AI")),
    el("div", { class: "row" },
      el("label", {}, el("input", { type: "checkbox", id: "private", checked: true }), " private"),
      el("button", { id: "create-room", type: "button", onclick: () => createRoom() }, "Create a room")),
    state.room ? roomBox(state.room) : null,
    el("div", { class: "row" },
      el("label", {}, "Invite code ", el("input", { id: "code", autocomplete: "off", maxlength: "16" })),
      el("button", { id: "join", type: "button", onclick: () => joinRoom() }, "Join")),
    el("div", { class: "row" },
      el("button", { id: "history", type: "button", onclick: () => net.send({ type: "history" }) }, "My games"),
      el("button", { id: "leaderboard", type: "button", onclick: () => net.send({ type: "leaderboard", variant: chosen("variant") }) }, "Leaderboard")));
  const seeks = [...state.seeks.values()].map((seek) => el("li", {},
    `${seek.name}#${seek.player} (${seek.rating}) · ${seek.variant} · ${clockSpec(seek.clock)}${seek.rated ? " · rated" : ""} `,
    seek.player === state.player ? el("em", {}, "yours")
      : el("button", { type: "button", "data-seek": String(seek.seek), onclick: () => net.send({ type: "accept_seek", seek: seek.seek }) }, "Play")));
  const rooms = [...state.rooms.values()].map((room) => el("li", {},
    `${room.code} · ${room.variant} · ${clockSpec(room.clock)} · ${room.host} `,
    el("button", { type: "button", onclick: () => net.send({ type: "join_room", code: room.code }) }, "Join")));
  const listed = [...state.listed.values()].sort((a, b) => a.game - b.game);
  const gameRow = (/** @type {any} */ game) => el("li", { "data-game": String(game.game) },
    `#${game.game} ${game.variant}: ${seatText(game.x)} vs ${seatText(game.o)} · ${game.moves} moves · ${game.watchers} watching `,
    el("button", { type: "button", onclick: () => watch(game.game) }, "Watch"));
  return el("div", { class: "lobby" },
    play,
    el("section", { class: "panel", "aria-label": "lobby" },
      el("h2", {}, "Open seeks"), list(seeks, "nobody is seeking"),
      el("h2", {}, "Open rooms"), list(rooms, "no open rooms"),
      el("h2", {}, "Live games"), list(listed.filter((g) => g.kind !== "war").map(gameRow), "no live games"),
      el("h2", {}, "War games"), el("ul", { id: "war-games" }, ...listed.filter((g) => g.kind === "war").map(gameRow)),
      state.leaderboard.length ? el("h2", {}, "Leaderboard") : null,
      state.leaderboard.length ? el("ol", {}, ...state.leaderboard.map((p) => el("li", {}, `${p.name}#${p.player} ${p.rating} (${p.games} games)`))) : null));
}

function list(/** @type {HTMLElement[]} */ items, /** @type {string} */ empty) {
  return items.length ? el("ul", {}, ...items) : el("p", { class: "dim" }, empty);
}

function roomBox(/** @type {string} */ code) {
  const link = `${location.origin}/#room=${encodeURIComponent(code)}`;
  return el("div", { class: "room", role: "status" },
    el("p", {}, "Your room is open. Invite code: ", el("strong", {}, code)),
    el("p", {}, "Send them this link: ", el("a", { id: "invite-link", href: link }, link), " ",
      el("button", { type: "button", onclick: () => navigator.clipboard?.writeText(link).then(() => say("link copied")) }, "Copy")),
    el("button", { type: "button", onclick: () => { net.send({ type: "close_room", code }); state.room = null; render(); } }, "Close the room"));
}

function seek() {
  /** @type {any} */
  const request = { type: "seek", variant: chosen("variant"), rated: /** @type {HTMLInputElement} */ (document.getElementById("rated")).checked };
  const clock = chosen("clock");
  if (clock) request.clock = clock;
  net.send(request);
}

function playAi() {
  /** @type {any} */
  const request = { type: "play_ai", variant: chosen("variant"), level: chosen("level"), side: chosen("side") };
  const clock = chosen("clock");
  if (clock) request.clock = clock;
  net.send(request);
}

function createRoom() {
  /** @type {any} */
  const request = {
    type: "create_room", variant: chosen("variant"),
    private: /** @type {HTMLInputElement} */ (document.getElementById("private")).checked,
    rated: /** @type {HTMLInputElement} */ (document.getElementById("rated")).checked,
  };
  const clock = chosen("clock");
  if (clock) request.clock = clock;
  net.send(request);
}

function joinRoom() {
  const code = /** @type {HTMLInputElement} */ (document.getElementById("code")).value.trim();
  if (code) net.send({ type: "join_room", code });
}

function watch(/** @type {number} */ game) {
  state.current = game;
  net.send({ type: "watch", game });
}

function leaveGame() {
  const game = state.current !== null ? state.games.get(state.current) : null;
  if (game && !game.you && !game.result) net.send({ type: "unwatch", game: game.game });
  if (game && (game.result || !game.you)) state.games.delete(game.game);
  state.current = null;
  state.view = "lobby";
  history.replaceState(null, "", "/#");
  render();
}

function gameView(/** @type {any} */ game) {
  const you = game.you ?? null;
  const live = !game.result;
  const myTurn = live && you && game.to_move === you;
  const boardBox = el("div", { class: "board-box" });
  renderBoard(boardBox, {
    variant: game.variant, board: game.board, winning: game.result?.cells ?? [],
    last: game.moves.length ? game.moves[game.moves.length - 1] : null,
    playable: Boolean(myTurn), onPlay: (cell) => net.send({ type: "move", game: game.game, cell }),
  });
  const seat = (/** @type {"x" | "o"} */ mark) => el("div", { class: `seat ${game.to_move === mark ? "to-move" : ""}` },
    el("span", { class: `mark mark-${mark}` }, mark.toUpperCase()), " ",
    seatText(game[mark]), you === mark ? " (you)" : "", game[mark].connected ? "" : " (offline)", " ",
    game.clock ? el("span", { class: "clock", "data-clock": mark }, "") : null);
  const status = game.result
    ? resultText(game.result, game) + ratingChange(game)
    : myTurn ? "Your move" : `${game[game.to_move]?.name ?? "?"} to move`;
  const actions = [];
  if (you && live) {
    actions.push(button("resign", "Resign", () => { if (confirm("Resign this game?")) net.send({ type: "resign", game: game.game }); }));
    actions.push(button("offer-draw", "Offer draw", () => net.send({ type: "offer_draw", game: game.game })));
    if (!game.rated) actions.push(button("takeback", "Takeback", () => net.send({ type: "takeback", game: game.game })));
    if (game.moves.length < 2) actions.push(button("abort", "Abort", () => net.send({ type: "abort", game: game.game })));
  }
  if (you && !live) actions.push(button("rematch", game.rematchBy && game.rematchBy !== you ? "Accept rematch" : "Rematch", () => net.send({ type: "rematch", game: game.game })));
  if (!live) actions.push(button("replay", "Replay", () => net.send({ type: "game_record", game: game.game })));
  actions.push(button("lobby", "Lobby", () => leaveGame()));
  const offer = game.offer && live ? el("p", { class: "offer", role: "status" },
    `${game[game.offer.by].name} offers ${game.offer.offer === "draw" ? "a draw" : "a takeback"} `,
    you && you !== game.offer.by ? button("accept-offer", "Accept", () => net.send({ type: game.offer.offer === "draw" ? "offer_draw" : "takeback", game: game.game })) : null,
    you && you !== game.offer.by ? button("decline-offer", "Decline", () => net.send({ type: "decline", game: game.game })) : null) : null;
  const moves = el("ol", { class: "moves", "aria-label": "moves" },
    ...game.moves.map((/** @type {number} */ cell, /** @type {number} */ i) => el("li", {}, `${i % 2 ? "O" : "X"} ${cellName(game.variant, cell)}`)));
  return el("div", { class: "game", "data-game": String(game.game) },
    el("h2", {}, `Game #${game.game} · ${game.variant}${game.rated ? " · rated" : ""}${game.kind === "war" ? " · war game" : ""}`),
    el("div", { class: "layout" },
      boardBox,
      el("aside", {},
        seat("x"), seat("o"),
        el("p", { id: "game-status", role: "status" }, status),
        offer,
        el("div", { class: "row" }, ...actions),
        el("p", { class: "dim" }, `${game.watchers} watching`),
        moves,
        chatBox(game))));
}

function ratingChange(/** @type {any} */ game) {
  if (!game.ratings || !game.you) return "";
  const mine = game.ratings[game.you];
  return ` · rating ${mine.rating} (${mine.change >= 0 ? "+" : ""}${mine.change})`;
}

function button(/** @type {string} */ id, /** @type {string} */ text, /** @type {() => void} */ action) {
  return el("button", { id, type: "button", onclick: action }, text);
}

function chatBox(/** @type {any} */ game) {
  const watcher = !game.you;
  const spectators = watcher && state.chatTab === "spectators";
  const lines = game.chat.filter((/** @type {any} */ line) => Boolean(line.mark) !== spectators);
  const tabs = watcher ? el("div", { class: "tabs", role: "tablist" },
    el("button", { type: "button", role: "tab", "aria-selected": String(!spectators), onclick: () => { state.chatTab = "players"; render(); } }, "Players"),
    el("button", { type: "button", role: "tab", "aria-selected": String(spectators), onclick: () => { state.chatTab = "spectators"; render(); } }, "Spectators")) : null;
  const input = el("input", { id: "chat-input", maxlength: "280", "aria-label": "chat", autocomplete: "off" });
  const send = () => {
    const text = /** @type {HTMLInputElement} */ (input).value.trim();
    if (!text) return;
    net.send({ type: "chat", game: game.game, text });
    /** @type {HTMLInputElement} */ (input).value = "";
  };
  input.addEventListener("keydown", (event) => { if (/** @type {KeyboardEvent} */ (event).key === "Enter") send(); });
  return el("section", { class: "chat", "aria-label": "chat" },
    tabs,
    el("ul", { id: "chat-lines" }, ...lines.map((/** @type {any} */ line) => el("li", {}, el("b", {}, line.from), ": ", line.text))),
    el("div", { class: "row" }, input, button("chat-send", "Send", send)));
}

function historyView() {
  return el("div", { class: "panel" },
    el("h2", {}, "My games"),
    list(state.history.map((game) => el("li", {},
      `#${game.game} ${game.variant}: ${seatText(game.x)} vs ${seatText(game.o)} · ${resultText(game.result, game)} · ${game.moves} moves `,
      el("button", { type: "button", "data-replay": String(game.game), onclick: () => net.send({ type: "game_record", game: game.game }) }, "Replay"))), "no finished games yet"),
    button("lobby", "Lobby", () => { state.view = "lobby"; render(); }));
}

function replayView() {
  const { record, ply } = state.replay;
  let board = ".".repeat(record.board.length);
  for (let i = 0; i < ply; i++) {
    const { mark, cell } = record.moves[i];
    board = board.slice(0, cell) + mark.toUpperCase() + board.slice(cell + 1);
  }
  const box = el("div", { class: "board-box" });
  renderBoard(box, {
    variant: record.variant, board, winning: ply === record.moves.length ? record.result?.cells ?? [] : [],
    last: ply ? record.moves[ply - 1].cell : null, playable: false, onPlay: () => {},
  });
  const step = (/** @type {number} */ to) => { state.replay.ply = Math.max(0, Math.min(record.moves.length, to)); render(); };
  const last = ply ? record.moves[ply - 1] : null;
  return el("div", { class: "replay", "data-ply": String(ply) },
    el("h2", {}, `Replay of game #${record.game} · ${record.variant}: ${seatText(record.x)} vs ${seatText(record.o)}`),
    el("div", { class: "layout" }, box,
      el("aside", {},
        el("p", { id: "replay-status", role: "status" },
          last ? `move ${ply} of ${record.moves.length}: ${last.mark.toUpperCase()} on ${cellName(record.variant, last.cell)}` : `start · ${record.moves.length} moves`),
        ply === record.moves.length && record.result ? el("p", {}, resultText(record.result, record)) : null,
        el("div", { class: "row" },
          button("replay-start", "⏮", () => step(0)),
          button("replay-back", "◀", () => step(ply - 1)),
          button("replay-next", "▶", () => step(ply + 1)),
          button("replay-end", "⏭", () => step(record.moves.length))),
        button("lobby", "Lobby", () => { state.view = "lobby"; history.replaceState(null, "", "/#"); render(); }))));
}

/** Ticks the clocks on screen between the server's updates. */
function tick() {
  const game = state.current !== null ? state.games.get(state.current) : null;
  if (!game || !game.clocks || state.view !== "game") return;
  const elapsed = performance.now() - (game.receivedAt ?? performance.now());
  for (const mark of ["x", "o"]) {
    const node = main.querySelector(`[data-clock="${mark}"]`);
    if (!node) continue;
    let ms = game.clocks[`${mark}_ms`];
    if (game.clocks.running === mark && !game.result) ms = Math.max(0, ms - elapsed);
    node.textContent = clockText(ms);
  }
}

document.addEventListener("keydown", (event) => {
  if (state.view !== "replay" || !state.replay) return;
  if (event.key === "ArrowRight") { state.replay.ply = Math.min(state.replay.record.moves.length, state.replay.ply + 1); render(); }
  if (event.key === "ArrowLeft") { state.replay.ply = Math.max(0, state.replay.ply - 1); render(); }
});

setInterval(tick, 200);
net.connect();
render();
