// The load client for the Colyseus peer: noughts' workloads played against server.js with the
// Colyseus client, reported in the JSON shape of noughts-loadgen's reports.
//
//   node load.js games --url ws://HOST:PORT [--games 1000] [--rate 1 | --saturate] [--secs 30]
//   node load.js idle  --url ws://HOST:PORT [--connections 10000] [--settle-secs 3]
//   node load.js site  --url ws://HOST:PORT [--games 1000] [--followers 2000] [--watchers 500]
//                      [--rate 1] [--warmup 10] [--secs 30]
//   (either with --server-pid PID to read the server's CPU and memory from /proc)
//
// Games are measured as noughts-loadgen measures them: each pair plays the drawn line
// 0 4 8 2 6 3 5 7 1, asks for a rematch and plays on. Paced games run open loop, one move a
// second per game with the games' phases spread evenly, and a move's latency runs from its
// scheduled time to the moment the mover's opponent sees it in the room's state; a move held back
// by a late update is sent at once and still measured from its scheduled time. Unpaced
// (--saturate), each game sends its next move as soon as the opponent has seen the last one.
//
// The site is noughts-loadgen's `site` on Colyseus's own parts (site.js): players in the
// LobbyRoom who match into listed games, followers, and spectators of running games.

"use strict";

const fs = require("fs");
const { performance } = require("perf_hooks");
const { Client } = require("colyseus.js");

const CLASSIC_DRAW = [0, 4, 8, 2, 6, 3, 5, 7, 1];
/** Clients setting up at once, as noughts-loadgen's SETUP_AT_ONCE. */
const SETUP_AT_ONCE = 64;
/** The longest one step of setting up may take. */
const STEP_MS = 20_000;

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

/** One reading of a process's CPU seconds and memory from /proc, or null. */
function sample(pid) {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 1).trim().split(/\s+/);
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (key) => Number((status.match(new RegExp(`${key}:\\s+(\\d+)`)) || [])[1] || 0);
    return {
      cpu_secs: (Number(fields[11]) + Number(fields[12])) / 100,
      rss_kib: kib("VmRSS"),
      peak_rss_kib: kib("VmHWM"),
    };
  } catch {
    return null;
  }
}

function usage(start, end, secs) {
  if (!start || !end) return null;
  const cpu = Math.max(0, end.cpu_secs - start.cpu_secs);
  return { cpu_secs: cpu, cores: cpu / secs, rss_kib: end.rss_kib, peak_rss_kib: end.peak_rss_kib };
}

/** Latency percentiles of samples in milliseconds, as the report's microseconds. */
function latency(samples) {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] * 1000);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50_us: at(0.5),
    p99_us: at(0.99),
    p999_us: at(0.999),
    max_us: Math.round(sorted[sorted.length - 1] * 1000),
    mean_us: (sum / sorted.length) * 1000,
  };
}

const errors = {};
function error(kind) {
  errors[kind] = (errors[kind] || 0) + 1;
}

function withTimeout(promise, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), STEP_MS)),
  ]);
}

/** Runs `count` jobs, `atOnce` at a time; failures are counted. */
async function gated(count, atOnce, job) {
  const results = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      try {
        results.push(await job(i));
      } catch (err) {
        error(String(err.message || err).split(/[:(]/)[0].trim().replace(/ /g, "_"));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, count) }, worker));
  return results;
}

/** Resolves once `room`'s state satisfies `test`. */
function stateWhere(room, test) {
  if (room.state && test(room.state)) return Promise.resolve();
  return withTimeout(
    new Promise((resolve) => {
      const listener = (state) => {
        if (test(state)) {
          room.onStateChange.remove(listener);
          resolve();
        }
      };
      room.onStateChange(listener);
    }),
    "state",
  );
}

function marks(state) {
  let n = 0;
  for (let i = 0; i < 9; i++) if (state.board[i] !== 0) n++;
  return n;
}

/** Two clients seated in one room, the first game started. */
async function seatPair(url) {
  const client = new Client(url);
  const a = await withTimeout(client.create("noughts"), "create");
  const b = await withTimeout(client.joinById(a.roomId), "join");
  await Promise.all([a, b].map((r) => stateWhere(r, (s) => s.game === 1 && s.toMove === 1)));
  return { a, b };
}

/** One pair's game loop, from `first` to `end` (performance.now() times). */
function play(pair, period, first, end, tally) {
  return new Promise((done) => {
    const { a, b } = pair;
    let game = 1;
    let ply = 0;
    let dueAt = first;
    let pending = null; // the scheduled time of the move in flight
    let timer = null;
    let over = false;
    let rematching = false;
    const finish = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      done();
    };
    const xRoom = () => (a.state.x === a.sessionId ? a : b);
    const send = () => {
      timer = null;
      if (over || pending !== null || rematching || ply >= 9) return;
      const now = performance.now();
      if (now >= end) return finish();
      // Node's timers run on the event loop's cached millisecond clock and may fire up to a
      // millisecond early: a move never goes out before its time, or its latency would shrink.
      if (now < dueAt) {
        timer = setTimeout(send, dueAt - now);
        return;
      }
      const x = xRoom();
      const mover = ply % 2 === 0 ? x : x === a ? b : a;
      pending = dueAt;
      mover.send("move", CLASSIC_DRAW[ply]);
      if (period) dueAt += period;
    };
    const schedule = () => {
      if (over || timer !== null) return;
      timer = setTimeout(send, Math.max(0, dueAt - performance.now()));
    };
    // The opponent's view completes a move; the mover's own patch is its acknowledgement.
    const seen = (room) => (state) => {
      if (over || state.game !== game) {
        if (!over && state.game === game + 1 && rematching && state.toMove === 1 && a.state.game === b.state.game) {
          game += 1;
          ply = 0;
          rematching = false;
          const now = performance.now();
          if (period) {
            while (dueAt < now) dueAt += period;
          } else {
            dueAt = now;
          }
          schedule();
        }
        return;
      }
      if (pending === null) return;
      const x = xRoom();
      const mover = ply % 2 === 0 ? x : x === a ? b : a;
      if (room === mover || marks(state) !== ply + 1) return;
      const now = performance.now();
      tally.latency.push(now - pending);
      tally.moves += 1;
      pending = null;
      ply += 1;
      if (!period) dueAt = now;
      if (state.result !== "") {
        tally.games += 1;
        rematching = true;
        a.send("rematch");
        b.send("rematch");
        return;
      }
      schedule();
    };
    a.onStateChange(seen(a));
    b.onStateChange(seen(b));
    for (const room of [a, b]) {
      room.onMessage("error", (m) => {
        error(m.code || "error");
        finish();
      });
      room.onLeave(() => {
        if (!over) error("closed");
        finish();
      });
    }
    setTimeout(finish, Math.max(0, end - performance.now()));
    schedule();
  });
}

async function games(url, pid) {
  const count = Number(arg("games", "1000"));
  const saturate = process.argv.includes("--saturate");
  const rate = Number(arg("rate", "1"));
  const secs = Number(arg("secs", "30"));
  const pairs = await gated(count, SETUP_AT_ONCE, () => seatPair(url));
  const period = saturate ? null : 1000 / rate;
  const start = performance.now() + 100;
  const end = start + secs * 1000;
  const tally = { latency: [], moves: 0, games: 0 };
  await new Promise((r) => setTimeout(r, 100));
  const server0 = sample(pid);
  const me0 = sample(process.pid);
  const t0 = performance.now();
  await Promise.all(
    pairs.map((pair, i) => {
      const first = period ? start + (period * i) / pairs.length : start;
      return play(pair, period, first, end, tally);
    }),
  );
  const elapsed = Math.min(secs, (performance.now() - t0) / 1000);
  const report = {
    scenario: `colyseus games: ${count} classic games, ${saturate ? "as fast as they go" : `${rate}/s each`}`,
    connections: pairs.length * 2,
    secs: elapsed,
    unit: "moves",
    ops: tally.moves,
    ops_per_sec: tally.moves / elapsed,
    latency: latency(tally.latency),
    errors,
    server: usage(server0, sample(pid), elapsed),
    generator: usage(me0, sample(process.pid), elapsed),
    figures: { games_done: tally.games },
  };
  await Promise.all(pairs.map(({ a, b }) => Promise.all([a.leave(), b.leave()]).catch(() => {})));
  return report;
}

async function idle(url, pid) {
  const count = Number(arg("connections", "10000"));
  const settle = Number(arg("settle-secs", "3"));
  const client = new Client(url);
  const first = await withTimeout(client.create("idle"), "create");
  await new Promise((r) => setTimeout(r, 500));
  const before = sample(pid);
  const me0 = sample(process.pid);
  const t0 = performance.now();
  const rooms = await gated(count - 1, 256, () => withTimeout(client.joinById(first.roomId), "join"));
  rooms.push(first);
  const opened = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, settle * 1000));
  const after = sample(pid);
  const elapsed = (performance.now() - t0) / 1000;
  const figures = { open_secs: opened };
  if (before && after) {
    figures.rss_before_kib = before.rss_kib;
    figures.rss_after_kib = after.rss_kib;
    figures.rss_per_conn_kib = (after.rss_kib - before.rss_kib) / Math.max(1, rooms.length - 1);
  }
  const report = {
    scenario: `colyseus idle: ${count} connections in one room`,
    connections: rooms.length,
    secs: elapsed,
    unit: "connections",
    ops: rooms.length,
    ops_per_sec: rooms.length / opened,
    latency: null,
    errors,
    server: usage(before, after, elapsed),
    generator: usage(me0, sample(process.pid), elapsed),
    figures,
  };
  for (const room of rooms) room.connection.close();
  return report;
}

/** What the site mode needs of this file. */
const shared = { arg, sample, usage, latency, errors, error, withTimeout, stateWhere, marks, CLASSIC_DRAW, SETUP_AT_ONCE };

async function main() {
  const url = arg("url", null);
  if (!url) throw new Error("--url ws://HOST:PORT is needed");
  const pid = Number(arg("server-pid", "0")) || null;
  const scenario = process.argv[2];
  let report;
  if (scenario === "games") report = await games(url, pid);
  else if (scenario === "idle") report = await idle(url, pid);
  else if (scenario === "site") report = await require("./site.js").site(url, pid, shared);
  else throw new Error(`unknown scenario ${scenario}: games, idle or site`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  // Connections still closing need not hold the process.
  process.exit(0);
}

main().catch((err) => {
  console.error(`load.js: ${err.stack || err}`);
  process.exit(1);
});
