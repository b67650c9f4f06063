// The TypeScript client (openapi-fetch over the types generated from
// openapi.yaml) plays the README's walk-throughs; tests/clients runs it with
// node against a real server and compares what it prints with the README.
//   node readme.js <examples.json> <base URL>
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "../src/api/schema";

type Schemas = components["schemas"];
const [examplesPath, base] = process.argv.slice(2);
const examples = JSON.parse(readFileSync(examplesPath, "utf8"));
const api = createClient<paths>({ baseUrl: base });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

const refused = (answer: { error?: unknown; response: Response }) => [
  answer.response.status,
  (answer.error as Schemas["Problem"]).code,
];

type Game = Schemas["PublicTable"]["game"];
const isTable = <G extends Game>(t: Schemas["PublicTable"], game: G): t is Extract<Schemas["PublicTable"], { game: G }> => t.game === game;
const isView = <G extends Game>(v: Schemas["SeatView"], game: G): v is Extract<Schemas["SeatView"], { game: G }> => v.game === game;

/** A table of `game` made from `body`, dealt `deal`; its views narrowed to that game. */
async function table<G extends Game>(game: G, body: Schemas["CreateTable"], deal: Schemas["Deal"]) {
  const created = ok(await api.POST("/v1/tables", { body }));
  const id = created.table_id!;
  const host = bearer(created.host_token!);
  const seats = created.seat_tokens!.map((s) => bearer(s.token!));
  ok(await api.POST("/v1/tables/{table_id}/rounds", { params: { path: { table_id: id } }, body: deal, headers: host }));
  const view = async (seat: number) => {
    const got = ok(await api.GET("/v1/tables/{table_id}/seats/{seat}", { params: { path: { table_id: id, seat } }, headers: seats[seat] }));
    if (!isView(got, game)) throw new Error(`a ${got.game} view at a ${game} table`);
    return got;
  };
  const read = async () => {
    const got = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: id } } }));
    if (!isTable(got, game)) throw new Error(`a ${got.game} table, not ${game}`);
    return got;
  };
  return { id, seats, view, read };
}

async function ship() {
  const example = examples.ship;
  const t = await table("my-ship-sails", example.table, { hands: example.hands });
  const resolved: boolean[] = [];
  let after: Awaited<ReturnType<typeof t.view>> | undefined;
  let early: unknown[] = [];
  const claim = () =>
    api.POST("/v1/tables/{table_id}/rounds/{round_no}/claims", { params: { path: { table_id: t.id, round_no: 1 } }, headers: t.seats[0] });
  for (const [i, cards] of (example.passes as string[][]).entries()) {
    for (const [seat, card] of cards.entries()) {
      const answer = await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", {
        params: { path: { table_id: t.id, round_no: 1, exchange_no: i + 1, seat } },
        body: { cards: [card] },
        headers: t.seats[seat],
      });
      resolved.push(ok(answer).resolved!);
    }
    if (i === 0) {
      after = await t.view(0);
      early = refused(await claim());
    }
  }
  const won = ok(await claim());
  const events = ok(await api.GET("/v1/tables/{table_id}/events", { params: { path: { table_id: t.id }, query: { after: 0 } } }));
  return {
    resolved,
    received: after?.received,
    hand: after?.hand,
    early_claim: early,
    winners: won.result?.winners,
    exchanges: won.result?.exchanges,
    wins: (await t.read()).seats!.map((s) => s.wins),
    events: events.events!.map((e) => e.type),
  };
}

async function sevens() {
  const t = await table("sevens", examples.sevens.table, { hands: examples.sevens.hands });
  const turn = (turn_no: number, seat: number, body: Schemas["Turn"]) =>
    api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", { params: { path: { table_id: t.id, round_no: 1, turn_no } }, body, headers: t.seats[seat] });
  const opener = await t.view(2);
  ok(await turn(1, 2, { play: "7D" }));
  const refusal = refused(await turn(2, 3, { pass: true }));
  let now = await t.read();
  while (now.round?.status === "playing") {
    const seat = now.round.on_turn!;
    const view = await t.view(seat);
    ok(await turn(now.round.turn!, seat, view.playable?.length ? { play: view.playable[0] } : { pass: true }));
    now = await t.read();
  }
  const result = now.last_result!;
  return {
    opener: [opener.on_turn, opener.playable],
    refused_pass: refusal,
    winner: result.winner,
    cards_left: result.cards_left,
    chips: result.chips,
    turns: result.turns,
    pot: result.pot,
  };
}

async function mayI() {
  const t = await table("may-i", examples.may_i.table, examples.may_i.deal);
  const path = { table_id: t.id, round_no: 1 };
  const move = (move_no: number, seat: number, body: Schemas["Move"]) =>
    api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", { params: { path: { ...path, move_no } }, body, headers: t.seats[seat] });
  const ask = (seat: number) => api.POST("/v1/tables/{table_id}/rounds/{round_no}/may-i", { params: { path }, body: { offer: 1 }, headers: t.seats[seat] });
  const answer = (seat: number, allow: boolean) =>
    api.PUT("/v1/tables/{table_id}/rounds/{round_no}/may-i/{offer_no}/answers/{seat}", { params: { path: { ...path, offer_no: 1, seat } }, body: { allow }, headers: t.seats[seat] });
  const benMay = (await t.view(1)).may;
  const declined = ok(await move(1, 1, { decline: true }));
  const benAsks = refused(await ask(1));
  const danAsks = ok(await ask(3));
  ok(await answer(2, false));
  const closed = ok(await answer(0, true));
  const catHand = (await t.view(2)).hand;
  ok(await move(2, 1, { draw: true }));
  ok(await move(3, 1, { lay_down: [["5H", "5S", "5C"], ["9D", "9H", "9S"]] }));
  const fits = refused(await move(4, 1, { discard: "9C" }));
  ok(await move(4, 1, { lay_off: { card: "9C", meld: 2 } }));
  const after = ok(await move(5, 1, { discard: "JS" }));
  const now = await t.read();
  return {
    ben_may: benMay,
    declined: [declined.step, declined.may_i?.offer, declined.may_i?.card],
    ben_asks: benAsks,
    dan_asks: [danAsks.current_offer?.asker, danAsks.open],
    closed: [closed.open, closed.step, closed.on_turn],
    cat_hand: catHand,
    discard_fits: fits,
    after: [after.on_turn, after.step, after.next_move],
    melds: now.round!.melds!.map((m) => m.cards),
    discard_top: now.round!.discard_top,
    cards: now.seats!.map((s) => s.cards),
  };
}

console.log(JSON.stringify({ ship: await ship(), sevens: await sevens(), may_i: await mayI() }));
