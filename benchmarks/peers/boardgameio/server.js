// The benchmark's peer: My Ship Sails' simultaneous pass (RULES.md 2.5) on
// boardgame.io's own Server, as a front end would set it up.
//
//   node server.js --port 8000 [--storage memory|flatfile] [--dir DIR]
//   (or PEER_PORT, PEER_STORAGE, PEER_DIR in the environment)
//
// The game: `classic` (service/games/ship/options.py): a trimmed deck of
// 7 × seats cards (RULES.md 2.3), 7 cards a hand, pass one card left. Every
// seat may move at once (ActivePlayers.ALL); `pass` runs on the server only
// (`client: false`) and accepts a move sent against an older state
// (`ignoreStaleStateID`: the seats of an exchange pass at the same moment).
// A seat may replace its choice until the last seat has chosen; then each
// seat's card goes to its left neighbour (seat + 1) at once. As with
// `declaration: automatic`, a hand of seven cards of one suit wins the round
// and the next round is dealt in the same step; a round with no winner after
// 50 exchanges is void and dealt again (the service's load uses
// `max_exchanges: 50`). Each seat sees only its own hand (playerView).
//
// Storage: boardgame.io's InMemory (the default: lost on a restart) or its
// FlatFile (node-persist files in DIR, a temporary folder by default; written
// without fsync).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { Server, Origins, FlatFile } = require('boardgame.io/server');
const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');

const RANKS = '23456789TJQKA';
const SUITS = 'CDHS';
const HAND_SIZE = 7;
const WIN_COUNT = 7;
const MAX_EXCHANGES = 50;

// RULES.md 2.3 `trimmed`: hand_size × seats cards, lowest ranks removed
// first, a partly removed rank in suit order C, D, H, S.
function trimmedDeck(seats) {
  const all = [];
  for (const rank of RANKS) for (const suit of SUITS) all.push(rank + suit);
  return all.slice(all.length - HAND_SIZE * seats);
}

function deal(random, seats) {
  const deck = random.Shuffle(trimmedDeck(seats));
  const hands = [];
  for (let s = 0; s < seats; s++) hands.push(deck.slice(s * HAND_SIZE, (s + 1) * HAND_SIZE));
  return hands;
}

function wins(hand) {
  const counts = {};
  for (const card of hand) counts[card[1]] = (counts[card[1]] || 0) + 1;
  return Object.values(counts).some((n) => n >= WIN_COUNT);
}

function newRound(G, random, seats) {
  G.round += 1;
  G.exchange = 1;
  G.hands = deal(random, seats);
  G.chosen = Array(seats).fill(null);
}

const ShipPass = {
  name: 'ship-pass',
  minPlayers: 4,
  maxPlayers: 7,
  setup: ({ ctx, random }) => ({
    round: 1,
    exchange: 1,
    hands: deal(random, ctx.numPlayers),
    chosen: Array(ctx.numPlayers).fill(null),
    wins: Array(ctx.numPlayers).fill(0),
    voids: 0,
  }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    pass: {
      // args: the exchange the seat passes in, and its card.
      move: ({ G, ctx, playerID, random }, exchange, card) => {
        const seat = Number(playerID);
        const seats = ctx.numPlayers;
        if (exchange !== G.exchange || !G.hands[seat].includes(card)) return INVALID_MOVE;
        G.chosen[seat] = card;
        if (G.chosen.some((c) => c === null)) return undefined;
        // The last seat has chosen: resolve the exchange for everyone.
        const given = G.chosen;
        G.hands = G.hands.map((hand, s) => [
          ...hand.filter((c) => c !== given[s]),
          given[(s - 1 + seats) % seats],
        ]);
        G.chosen = Array(seats).fill(null);
        const winners = G.hands.map((h, s) => (wins(h) ? s : -1)).filter((s) => s >= 0);
        if (winners.length > 0) {
          for (const s of winners) G.wins[s] += 1;
          newRound(G, random, seats);
        } else if (G.exchange >= MAX_EXCHANGES) {
          G.voids += 1;
          newRound(G, random, seats);
        } else {
          G.exchange += 1;
        }
        return undefined;
      },
      client: false,
      ignoreStaleStateID: true,
    },
  },
  // A seat sees its own hand and whether it has chosen; nobody else's cards.
  playerView: ({ G, playerID }) => {
    const seat = Number(playerID);
    return {
      round: G.round,
      exchange: G.exchange,
      hand: playerID === null || playerID === undefined ? [] : G.hands[seat],
      chosen: G.chosen.map((c) => c !== null),
      wins: G.wins,
      voids: G.voids,
    };
  },
};

function option(name, envName, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  return process.env[envName] || fallback;
}

async function main() {
  const port = Number(option('port', 'PEER_PORT', '8000'));
  const storage = option('storage', 'PEER_STORAGE', 'memory');
  let db;
  if (storage === 'flatfile') {
    const dir = option('dir', 'PEER_DIR', '') || fs.mkdtempSync(path.join(os.tmpdir(), 'bgio-'));
    db = new FlatFile({ dir, logging: false, ttl: false });
  } else if (storage !== 'memory') {
    throw new Error(`--storage is memory or flatfile, not ${storage}`);
  }
  const server = Server({
    games: [ShipPass],
    db, // undefined: boardgame.io's InMemory
    origins: [Origins.LOCALHOST],
  });
  await server.run({ port, callback: () => console.log(`ready on ${port} (${storage})`) });
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { ShipPass, trimmedDeck };
