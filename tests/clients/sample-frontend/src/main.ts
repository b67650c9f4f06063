// Plays one move of each game against a real server and prints what it saw
// as JSON (tests/clients/test_sample_frontend.py runs it with node):
//   node main.js <base URL>
import { type Api, type Game, client, createAndDeal, explain, log, outOfTurn, playOnce, readTable, readView } from "./client";

async function oneMove(api: Api, game: Game) {
  const t = await createAndDeal(api, game);
  const table = await readTable(api, t);
  const moved: string[] = [];
  for (const seat of table.awaiting.seats) {
    const done = await playOnce(api, t, await readView(api, t, seat));
    if (done !== null) moved.push(done);
  }
  // A seat the table does not await moves all the same: the refusal's code is typed.
  const now = await readTable(api, t);
  const other = [0, 1, 2, 3].find((s) => !now.awaiting.seats.includes(s)) ?? 0;
  const code = await outOfTurn(api, t, await readView(api, t, other));
  const refused = code === null ? "taken" : `${code}: ${explain(code)}`;
  return { game: table.game, variant: table.variant, moved: moved.length, refused, events: await log(api, t) };
}

const [base] = process.argv.slice(2);
if (base === undefined) throw new Error("usage: node main.js <base URL>");
const api = client(base);
const games: Game[] = ["my-ship-sails", "sevens", "may-i"];
const seen = [];
for (const game of games) seen.push(await oneMove(api, game));
console.log(JSON.stringify(seen));
