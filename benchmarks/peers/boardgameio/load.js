// The load on the peer (server.js): the same shape as benchmarks/exchange_load.py
// drives against the service.
//
//   node load.js http://127.0.0.1:8000 --tables 16 --seats 7 --duration 10 --warmup 2
//
// 1. Creates `tables` matches through the lobby REST API and joins every
//    seat (real credentials), then connects every seat with boardgame.io's
//    own client over its socket.io transport and waits for each to sync.
// 2. Per table, every seat passes at the same moment (the card the service's
//    automatic player would pass: benchmarks/players.py); the next exchange
//    starts once every seat has seen its new hand.
// 3. Prints one JSON line: passes (whose seat saw the resolved state, sent in
//    the measured window after `warmup` s), passes_per_s, latency_ms
//    {p50, p95, p99, n}, client_cpu_s and client_wall_s (the whole process). Latency: from sending the move to the
//    seat's client receiving the pushed state of the next exchange (or round)
//    — the moment that seat knows its new hand. Exit status 1 when a table
//    stalls (a seat saw nothing for `stall` s).
'use strict';

const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { ShipPass } = require('./server');

const RANKS = '23456789TJQKA';
const SUITS = 'CDHS';

function args() {
  const out = { base: 'http://127.0.0.1:8000', tables: 16, seats: 7, duration: 10, warmup: 2, stall: 30 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
      out[argv[i].slice(2)] = Number(argv[i + 1]);
      i++;
    } else {
      out.base = argv[i].replace(/\/$/, '');
    }
  }
  return out;
}

// benchmarks/players.py (service/games/ship/simulate.py choose_cards), one card:
// keep the longest suit, pass the lowest card of the shortest other suit.
function chooseCard(hand) {
  const counts = {};
  const strength = {};
  for (const c of hand) {
    counts[c[1]] = (counts[c[1]] || 0) + 1;
    strength[c[1]] = (strength[c[1]] || 0) + RANKS.indexOf(c[0]);
  }
  const suits = Object.keys(counts);
  suits.sort(
    (a, b) => counts[b] - counts[a] || strength[b] - strength[a] || SUITS.indexOf(a) - SUITS.indexOf(b),
  );
  const keep = suits[0];
  const key = (c) => [counts[c[1]], SUITS.indexOf(c[1]), RANKS.indexOf(c[0])];
  const byKey = (x, y) => {
    const a = key(x);
    const b = key(y);
    return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  };
  const others = hand.filter((c) => c[1] !== keep).sort(byKey);
  if (others.length > 0) return others[0];
  return hand.slice().sort((x, y) => RANKS.indexOf(x[0]) - RANKS.indexOf(y[0]))[0];
}

async function post(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  const rank = ((sorted.length - 1) * q) / 100;
  const low = Math.floor(rank);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

class Table {
  constructor(opts, matchID, credentials, window, record) {
    this.window = window;
    this.record = record;
    this.seats = credentials.map((credentials, s) => ({
      client: Client({
        game: ShipPass,
        numPlayers: opts.seats,
        multiplayer: SocketIO({ server: opts.base }),
        matchID,
        playerID: String(s),
        credentials,
        debug: false,
      }),
      at: null, // [round, exchange] the seat last passed in
      sent: 0,
      done: true,
      lastSeen: now(),
    }));
    this.stopped = false;
    this.onIdle = null;
  }

  // Resolves once every seat's client holds a state.
  start() {
    return Promise.all(
      this.seats.map(
        (seat) =>
          new Promise((resolve) => {
            seat.client.subscribe((state) => {
              if (!state || !state.G) return;
              seat.lastSeen = now();
              this.seen(seat, state.G);
              resolve();
            });
            seat.client.start();
          }),
      ),
    );
  }

  seen(seat, G) {
    seat.G = G;
    if (seat.done || seat.at === null) return;
    if (G.round === seat.at[0] && G.exchange === seat.at[1]) return; // not resolved yet
    seat.done = true;
    this.window.whole += 1;
    const t = now();
    if (seat.sent >= this.window.start && seat.sent < this.window.end) this.record(t - seat.sent);
    if (this.seats.every((s) => s.done)) setImmediate(() => this.exchange());
  }

  exchange() {
    if (this.stopped || now() >= this.window.end) {
      this.stopped = true;
      if (this.onIdle) this.onIdle();
      return;
    }
    const t = now();
    for (const seat of this.seats) {
      seat.at = [seat.G.round, seat.G.exchange];
      seat.sent = t;
      seat.done = false;
    }
    // Every seat of the table at the same moment.
    for (const seat of this.seats) seat.client.moves.pass(seat.G.exchange, chooseCard(seat.G.hand));
  }

  stalled(limitMs) {
    return !this.stopped && this.seats.some((s) => !s.done && now() - s.sent > limitMs);
  }

  stop() {
    for (const seat of this.seats) seat.client.stop();
  }
}

async function main() {
  const opts = args();
  const game = `${opts.base}/games/${ShipPass.name}`;
  const tables = [];
  const latencies = [];
  const window = { start: Infinity, end: Infinity, whole: 0 };
  for (let t = 0; t < opts.tables; t++) {
    const { matchID } = await post(`${game}/create`, { numPlayers: opts.seats });
    const credentials = [];
    for (let s = 0; s < opts.seats; s++) {
      const joined = await post(`${game}/${matchID}/join`, { playerID: String(s), playerName: `P${s}` });
      credentials.push(joined.playerCredentials);
    }
    tables.push(new Table(opts, matchID, credentials, window, (ms) => latencies.push(ms)));
  }
  await Promise.all(tables.map((table) => table.start()));
  const began = now();
  window.start = began + opts.warmup * 1000;
  window.end = window.start + opts.duration * 1000;
  const finished = Promise.all(tables.map((table) => new Promise((resolve) => (table.onIdle = resolve))));
  for (const table of tables) table.exchange();
  let stalled = false;
  const watchdog = setInterval(() => {
    if (tables.some((table) => table.stalled(opts.stall * 1000))) {
      stalled = true;
      for (const table of tables) if (table.onIdle) table.onIdle();
    }
  }, 500);
  await finished;
  clearInterval(watchdog);
  const cpu = process.cpuUsage(); // the whole process, set-up included
  for (const table of tables) table.stop();
  latencies.sort((a, b) => a - b);
  const result = {
    target: 'boardgame.io',
    tables: opts.tables,
    seats: opts.seats,
    window_s: opts.duration,
    passes: latencies.length,
    passes_per_s: latencies.length / opts.duration,
    passes_whole_run: window.whole, // warm-up included: the server's CPU covers it too
    latency_ms: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      n: latencies.length,
    },
    latency_measures: 'move sent -> the seat\'s client receives the pushed state of the next exchange',
    client_cpu_s: (cpu.user + cpu.system) / 1e6,
    client_wall_s: process.uptime(),
    // From seat 0's view of each table: rounds that ended (won or void).
    rounds_won: tables.reduce((n, t) => n + t.seats[0].G.wins.reduce((a, b) => a + b, 0), 0),
    rounds_void: tables.reduce((n, t) => n + t.seats[0].G.voids, 0),
    stalled,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(stalled ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
