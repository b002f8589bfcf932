// The site on Colyseus, for `node load.js site`: noughts-loadgen's `site` scenario played with
// Colyseus's own parts, its built-in LobbyRoom and matchmaking (server.js's "lobby" and
// "listed" rooms).
//
// - A player joins the LobbyRoom and reads its listing, matches into a game (`joinOrCreate`,
//   which fills a room waiting for its second player, or opens one), leaves the lobby once the
//   game starts, plays it at the given pace, leaves the room at its end, and goes back to the
//   lobby for another: as noughts' players quick-match, stop following the lobby while they play
//   and come back.
// - A follower sits in the LobbyRoom and counts the listing changes it is sent.
// - A watcher picks a running game from the listing, leaves the lobby, watches the game as a
//   spectator to its end and goes back to the lobby for another.
//
// Measured as noughts-loadgen measures its site: each move's latency from its scheduled time to
// the opponent seeing it (both players are in this process: the mover leaves the schedule where
// the opponent finds it); the pace is one move every period after the previous move's scheduled
// time, X's first at a random point of its first period. The window starts after a warm-up in
// which every client has joined; the server's CPU is read over the window.

"use strict";

const { performance } = require("perf_hooks");
const { Client } = require("colyseus.js");

/** A counting semaphore. */
function semaphore(n) {
  let free = n;
  const waiting = [];
  return {
    async acquire() {
      if (free > 0) {
        free -= 1;
        return;
      }
      await new Promise((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}

const sleepUntil = (at) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/** Leaves `room` without waiting for the close. */
function leave(room) {
  room.leave().catch(() => {});
}

/** The error kind of a thrown error, as load.js counts them. */
function kind(err) {
  return String(err.message || err).split(/[:(]/)[0].trim().replace(/ /g, "_");
}

/** The lobby's listing as one client sees it: room id to listing. */
class Listing {
  constructor(lobby, onChange) {
    this.rooms = new Map();
    this.ready = false;
    this.waiters = [];
    lobby.onMessage("rooms", (rooms) => {
      this.rooms = new Map(rooms.map((room) => [room.roomId, room]));
      this.ready = true;
      this.wake();
    });
    lobby.onMessage("+", ([roomId, room]) => {
      this.rooms.set(roomId, room);
      onChange();
      this.wake();
    });
    lobby.onMessage("-", (roomId) => {
      this.rooms.delete(roomId);
      onChange();
    });
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves when the listing changes (or at `deadline`). */
  changed(deadline) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The ids of running games with a spectator seat free. */
  running() {
    const ids = [];
    for (const [id, room] of this.rooms) {
      if (room.name === "listed" && room.metadata && room.metadata.playing && !room.locked) ids.push(id);
    }
    return ids;
  }
}

async function site(url, pid, lib) {
  const { arg, sample, usage, latency, errors, error, withTimeout, marks, CLASSIC_DRAW, SETUP_AT_ONCE } = lib;
  const games = Number(arg("games", "1000"));
  const followers = Number(arg("followers", String(games * 2)));
  const watchers = Number(arg("watchers", String(Math.round(games / 2))));
  const rate = Number(arg("rate", "1"));
  const warmup = Number(arg("warmup", "10"));
  const secs = Number(arg("secs", "30"));
  const period = 1000 / rate;
  const start = performance.now() + warmup * 1000;
  const end = start + secs * 1000;
  const holds = (at) => at >= start && at < end;
  const client = new Client(url);
  const gate = semaphore(SETUP_AT_ONCE);
  const tally = {
    latency: [],
    moves: 0,
    games: 0,
    matched: 0,
    lobbyFrames: 0,
    mostFrames: 0,
    watched: 0,
    watchMissed: 0,
    joined: 0,
    schedule: new Map(),
  };

  /** Joins the lobby (the first time under the set-up gate) and waits for its listing. */
  async function lobby(first, onChange = () => {}) {
    if (first) await gate.acquire();
    try {
      const room = await withTimeout(client.joinOrCreate("lobby"), "lobby");
      const listing = new Listing(room, onChange);
      if (first) tally.joined += 1;
      while (!listing.ready && performance.now() < end) await listing.changed(end);
      return { room, listing };
    } finally {
      if (first) gate.release();
    }
  }

  /** Resolves true once `room`'s game has started, false at the window's end. */
  function started(room) {
    // Before its first state arrives a room's state holds no values at all.
    const ready = (s) => Boolean(s.o) && (s.toMove === 1 || s.toMove === 2 || Boolean(s.result));
    if (room.state && ready(room.state)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, end - performance.now()));
      const listener = (state) => {
        if (ready(state)) {
          room.onStateChange.remove(listener);
          clearTimeout(timer);
          resolve(true);
        }
      };
      room.onStateChange(listener);
    });
  }

  /** Plays one game to its end (or the window's). */
  function play(room) {
    return new Promise((done) => {
      const mark = room.state.x === room.sessionId ? 1 : 2;
      let ply = marks(room.state);
      let due = mark === 1 && ply === 0 ? performance.now() + period * Math.random() : null;
      let timer = null;
      let over = false;
      const finish = () => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        clearTimeout(stop);
        done();
      };
      const send = () => {
        timer = null;
        if (over || due === null) return;
        const now = performance.now();
        if (now >= end) return finish();
        // Node's timers may fire up to a millisecond early: never send before the time.
        if (now < due) {
          timer = setTimeout(send, due - now);
          return;
        }
        tally.schedule.set(`${room.roomId}:${ply}`, due);
        room.send("move", CLASSIC_DRAW[ply]);
        due = null;
      };
      const arm = () => {
        if (due !== null && timer === null) timer = setTimeout(send, Math.max(0, due - performance.now()));
      };
      room.onStateChange((state) => {
        if (over) return;
        const seen = marks(state);
        while (ply < seen) {
          const made = ply;
          ply += 1;
          // X moves on the even plies: one's own move needs no measuring.
          if ((made % 2 === 0 ? 1 : 2) === mark) continue;
          const key = `${room.roomId}:${made}`;
          const scheduled = tally.schedule.get(key);
          tally.schedule.delete(key);
          const now = performance.now();
          if (scheduled !== undefined) {
            if (holds(scheduled)) {
              tally.latency.push(now - scheduled);
              tally.moves += 1;
            }
            if (ply < 9) due = Math.max(scheduled + period, now);
          }
        }
        if (state.result) {
          if (mark === 1 && holds(performance.now())) tally.games += 1;
          finish();
          return;
        }
        if (state.toMove === mark) arm();
      });
      room.onMessage("error", (m) => {
        error(m.code || "error");
        finish();
      });
      room.onLeave(() => {
        if (!over && performance.now() < end) error("closed");
        finish();
      });
      const stop = setTimeout(finish, Math.max(0, end - performance.now()));
      arm();
    });
  }

  async function player() {
    let first = true;
    while (performance.now() < end) {
      const { room: hall } = await lobby(first);
      first = false;
      if (performance.now() >= end) {
        await hall.leave();
        break;
      }
      const room = await withTimeout(client.joinOrCreate("listed", { open: true }), "match");
      const going = await started(room);
      // Leaving is a message and a close: nothing waits for it, as nothing waits in noughts.
      leave(hall);
      if (!going) {
        leave(room);
        break;
      }
      if (room.state.x === room.sessionId && holds(performance.now())) tally.matched += 1;
      await play(room);
      leave(room);
    }
  }

  async function follower() {
    let mine = 0;
    const { room } = await lobby(true, () => {
      if (holds(performance.now())) {
        mine += 1;
        tally.lobbyFrames += 1;
      }
    });
    await sleepUntil(end);
    tally.mostFrames = Math.max(tally.mostFrames, mine);
    await room.leave();
  }

  async function watcher() {
    let first = true;
    while (performance.now() < end) {
      const { room: hall, listing } = await lobby(first);
      first = false;
      let ids = listing.running();
      while (ids.length === 0 && performance.now() < end) {
        await listing.changed(end);
        ids = listing.running();
      }
      leave(hall);
      if (ids.length === 0) break;
      const id = ids[Math.floor(Math.random() * ids.length)];
      let room;
      try {
        room = await withTimeout(client.joinById(id, { watch: true }), "watch");
      } catch (err) {
        // Gone, or its seats taken, since the listing said otherwise: back for another.
        if (!/not found|locked|full|disposed/i.test(String(err.message || err))) throw err;
        tally.watchMissed += 1;
        continue;
      }
      if (holds(performance.now())) tally.watched += 1;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, end - performance.now()));
        const over = (state) => {
          if (state.result) {
            clearTimeout(timer);
            resolve();
          }
        };
        room.onStateChange(over);
        room.onLeave(() => {
          clearTimeout(timer);
          resolve();
        });
        if (room.state) over(room.state);
      });
      leave(room);
    }
  }

  const run = (job) => job().catch((err) => error(kind(err)));
  const tasks = [
    ...Array.from({ length: games * 2 }, () => run(player)),
    ...Array.from({ length: followers }, () => run(follower)),
    ...Array.from({ length: watchers }, () => run(watcher)),
  ];
  await sleepUntil(start);
  const server0 = sample(pid);
  const me0 = sample(process.pid);
  const t0 = performance.now();
  await sleepUntil(end);
  const server1 = sample(pid);
  const me1 = sample(process.pid);
  const elapsed = (performance.now() - t0) / 1000;
  await Promise.all(tasks);
  const figures = {
    games_done: tally.games,
    games_from_seeks: tally.matched,
    games_watched: tally.watched,
    watch_missed: tally.watchMissed,
  };
  const server = usage(server0, server1, elapsed);
  if (server && tally.moves > 0) figures.server_cpu_us_per_move = (server.cpu_secs * 1e6) / tally.moves;
  if (followers > 0) {
    figures.lobby_frames_per_follower_per_sec = tally.lobbyFrames / followers / elapsed;
    figures.lobby_frames_most_per_sec = tally.mostFrames / elapsed;
  }
  return {
    scenario: `colyseus site: ${games} listed classic games at ${rate}/s, ${followers} lobby followers, ${watchers} watchers`,
    connections: tally.joined,
    secs: elapsed,
    unit: "moves",
    ops: tally.moves,
    ops_per_sec: tally.moves / elapsed,
    latency: latency(tally.latency),
    errors,
    server,
    generator: usage(me0, me1, elapsed),
    figures,
  };
}

module.exports = { site };
