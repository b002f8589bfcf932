// Noughts and crosses on Colyseus: the peer that bench/run --peer measures noughts against.
//
// The same rules as noughts' classic game (3x3, X first, eight lines, a full board without a line
// is a draw) in a room per game, written as Colyseus means rooms to be written: the game is the
// room's schema state, and every change reaches both players as a state patch. A move is patched
// out at once (`broadcastPatch`) rather than at the next 50 ms tick, so that its latency is the
// server's and not the patch clock's. After a game both players ask for a rematch and the room
// starts the next game with the marks swapped. An "idle" room holds connections that only stay.
//
// The site (load.js site): Colyseus's built-in LobbyRoom ("lobby"), and "listed" rooms, a game
// each, listed in it as they change (`enableRealtimeListing`). Players find a game by
// matchmaking (`joinOrCreate`, which fills a room waiting for its second player); once both are
// in, the game starts, the room stops taking players and opens seats for spectators, who see the
// game and cannot move. Players leave when the game ends; the room goes when the last one has.
//
//   node server.js [--port 0] [--host 127.0.0.1]
//
// Prints `ws://HOST:PORT` once it listens.

"use strict";

const http = require("http");
const { Server, Room, LobbyRoom } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");
const { schema, ArraySchema } = require("@colyseus/schema");

/** The eight lines of the classic board, cells numbered row-major. */
const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];

/** A cell: empty, X or O. */
const EMPTY = 0, X = 1, O = 2;

const GameState = schema({
  /** The nine cells. */
  board: { array: "uint8" },
  /** Whose turn: X or O; EMPTY once the game is over. */
  toMove: "uint8",
  /** Grows with every change, as noughts' seq does. */
  seq: "uint32",
  /** Games played in this room so far, the one in progress counted. */
  game: "uint32",
  /** "", "x", "o" or "draw". */
  result: "string",
  /** The session holding X. */
  x: "string",
  /** The session holding O. */
  o: "string",
});

/** The winner's mark if a line is full, else EMPTY. */
function winner(board) {
  for (const [a, b, c] of LINES) {
    if (board[a] !== EMPTY && board[a] === board[b] && board[a] === board[c]) {
      return board[a];
    }
  }
  return EMPTY;
}

class NoughtsRoom extends Room {
  onCreate() {
    this.maxClients = 2;
    // Patches go out when a move is made, not on a clock.
    this.patchRate = null;
    this.rematch = new Set();
    const state = new GameState();
    state.board = new ArraySchema(...new Array(9).fill(EMPTY));
    state.toMove = EMPTY;
    state.seq = 0;
    state.game = 0;
    state.result = "";
    state.x = "";
    state.o = "";
    this.state = state;
    this.onMessage("move", (client, cell) => this.move(client, cell));
    this.onMessage("rematch", (client) => this.askRematch(client));
  }

  onJoin(client) {
    if (this.state.x === "") {
      this.state.x = client.sessionId;
    } else {
      this.state.o = client.sessionId;
      this.start();
    }
  }

  onLeave(client) {
    if (this.state.result === "" && this.state.toMove !== EMPTY) {
      // Leaving forfeits, as abandoning does in noughts.
      this.state.result = client.sessionId === this.state.x ? "o" : "x";
      this.state.toMove = EMPTY;
      this.state.seq += 1;
      this.broadcastPatch();
    }
  }

  /** A new game on a clear board, X to move. */
  start() {
    for (let i = 0; i < 9; i++) this.state.board[i] = EMPTY;
    this.state.toMove = X;
    this.state.result = "";
    this.state.game += 1;
    this.state.seq += 1;
    this.rematch.clear();
    this.broadcastPatch();
  }

  move(client, cell) {
    const state = this.state;
    const mark = client.sessionId === state.x ? X : client.sessionId === state.o ? O : EMPTY;
    if (mark === EMPTY || state.toMove !== mark) {
      client.send("error", { code: "not_your_turn" });
      return;
    }
    if (!Number.isInteger(cell) || cell < 0 || cell > 8 || state.board[cell] !== EMPTY) {
      client.send("error", { code: "illegal_move" });
      return;
    }
    state.board[cell] = mark;
    state.seq += 1;
    const won = winner(state.board);
    if (won !== EMPTY) {
      state.result = won === X ? "x" : "o";
      state.toMove = EMPTY;
    } else if (state.board.every((c) => c !== EMPTY)) {
      state.result = "draw";
      state.toMove = EMPTY;
    } else {
      state.toMove = mark === X ? O : X;
    }
    this.broadcastPatch();
  }

  askRematch(client) {
    if (this.state.result === "") return;
    this.rematch.add(client.sessionId);
    if (this.rematch.size === 2) {
      // The marks swap, as in a noughts rematch.
      [this.state.x, this.state.o] = [this.state.o, this.state.x];
      this.start();
    }
  }
}

/** Spectator seats in a listed game, beside its two players. */
const SPECTATOR_SEATS = 8;

/**
 * A game of the site: listed in the lobby, matched into by `joinOrCreate("listed", { open: true
 * })`, watched by spectators (`joinById(id, { watch: true })`) once it runs. `open` is a filter
 * field of its listing (`filterBy`), true while it waits for its second player; the two player
 * seats are taken atomically by the matchmaker (the room locks at two reservations) and then the
 * room closes to players (`open: false`) before it reopens with its spectator seats.
 */
class ListedRoom extends NoughtsRoom {
  onCreate(options) {
    super.onCreate(options);
    this.watchers = new Set();
    this.setMetadata({ playing: false });
  }

  onJoin(client, options) {
    if (options && options.watch) {
      this.watchers.add(client.sessionId);
      return;
    }
    super.onJoin(client);
    if (this.state.o !== "") {
      this.listing.updateOne({ $set: { open: false } });
      this.setMetadata({ playing: true });
      // Raising the seats unlocks the room: it is listed as running and takes spectators.
      this.maxClients = 2 + SPECTATOR_SEATS;
    }
  }

  onLeave(client) {
    if (this.watchers.delete(client.sessionId)) return;
    super.onLeave(client);
  }

  // One game a room: no rematch.
  askRematch() {}
}

/** Connections that join and stay: the peer of noughts' idle connections. */
class IdleRoom extends Room {
  onCreate() {
    this.maxClients = 1_000_000;
    this.patchRate = null;
  }
}

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

async function main() {
  const host = arg("host", "127.0.0.1");
  const port = Number(arg("port", "0"));
  const server = http.createServer();
  const gameServer = new Server({
    greet: false,
    transport: new WebSocketTransport({ server, maxPayload: 4096 }),
  });
  gameServer.define("noughts", NoughtsRoom);
  gameServer.define("idle", IdleRoom);
  gameServer.define("lobby", LobbyRoom);
  gameServer.define("listed", ListedRoom).filterBy(["open"]).enableRealtimeListing();
  await gameServer.listen(port, host);
  console.log(`colyseus listening on ws://${host}:${server.address().port}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

module.exports = { NoughtsRoom, winner };
