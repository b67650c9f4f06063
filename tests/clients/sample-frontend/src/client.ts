// A sample front end's calls, for all three games, typed by the types that
// openapi-typescript generates from openapi.yaml (web/src/api/schema.d.ts)
// and made with openapi-fetch: no cast anywhere (tests/clients checks it
// compiles under `tsc --strict` and plays a move of each game against a real
// server). A page of a live table would feed `playOnce` the views and
// `describe` the events that its seat's stream hands it.
import createClient from "openapi-fetch";
import type { components, paths } from "../../../../web/src/api/schema";

export type Schemas = components["schemas"];
export type Api = ReturnType<typeof createClient<paths>>;
export type Game = Schemas["PublicTable"]["game"];
export type TableOf<G extends Game> = Extract<Schemas["PublicTable"], { game: G }>;
export type ViewOf<G extends Game> = Extract<Schemas["SeatView"], { game: G }>;
export type Event = Schemas["Event"];
export type Code = Schemas["Problem"]["code"];

export const client = (baseUrl: string): Api => createClient<paths>({ baseUrl });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A refused call: its status and problem+json (its `code` is one of the spec's). */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly problem: Schemas["Problem"] | undefined,
  ) {
    super(`${status} ${problem?.code ?? ""}: ${problem?.detail ?? ""}`);
  }
}

/** The data of an answer, or throws {@link Refused} with its problem. */
export function ok<T>(answer: { data?: T; error?: Schemas["Problem"]; response: Response }): T {
  if (answer.data === undefined) throw new Refused(answer.response.status, answer.error);
  return answer.data;
}

/** What a player reads for a refusal: a switch over the spec's codes. */
export function explain(code: Code): string {
  switch (code) {
    case "not-your-turn":
      return "Wait for your turn.";
    case "stale-exchange":
    case "stale-turn":
    case "stale-move":
    case "stale-round":
      return "The table moved on: read it again.";
    case "must-play":
      return "You hold a card that fits: play it.";
    case "rate-limited":
      return "Too fast: try again in a moment.";
    case "seats-open":
      return "Wait until every seat is taken.";
    default:
      return `Refused (${code}).`;
  }
}

export const isTable = <G extends Game>(table: Schemas["PublicTable"], game: G): table is TableOf<G> => table.game === game;
export const isView = <G extends Game>(view: Schemas["SeatView"], game: G): view is ViewOf<G> => view.game === game;

const PLAYERS = ["Ann", "Ben", "Cat", "Dan"];

/** A new table of each game, each with option overrides of its own game. */
export const NEW_TABLES = {
  "my-ship-sails": { variant: "classic", players: PLAYERS, first_dealer: 0, options: { claim_window_ms: 0, max_exchanges: 50 } },
  sevens: { variant: "sevens", players: PLAYERS, first_dealer: 0, options: { pass_chips: 2, turn_the_corner: false } },
  "may-i": { variant: "may-i", players: PLAYERS, first_dealer: 0, options: { may_i_window_ms: 0, jokers: 2 } },
} satisfies Record<Game, Schemas["CreateTable"]>;

/** A table made and dealt: its id, the host's and the seats' tokens. */
export interface Seated<G extends Game> {
  game: G;
  id: string;
  host: string;
  seats: string[];
}

export async function createAndDeal<G extends Game>(api: Api, game: G): Promise<Seated<G>> {
  const created = ok(await api.POST("/v1/tables", { body: NEW_TABLES[game] }));
  const seated = { game, id: created.table_id, host: created.host_token, seats: created.seat_tokens.map((s) => s.token) };
  ok(await api.POST("/v1/tables/{table_id}/rounds", { params: { path: { table_id: seated.id } }, body: {}, headers: bearer(seated.host) }));
  return seated;
}

export async function readTable<G extends Game>(api: Api, t: Seated<G>): Promise<TableOf<G>> {
  const table = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: t.id } } }));
  if (!isTable(table, t.game)) throw new Error(`a ${table.game} table, not ${t.game}`);
  return table;
}

export async function readView<G extends Game>(api: Api, t: Seated<G>, seat: number): Promise<ViewOf<G>> {
  const token = t.seats[seat];
  if (token === undefined) throw new Error(`no seat ${seat}`);
  const view = ok(await api.GET("/v1/tables/{table_id}/seats/{seat}", { params: { path: { table_id: t.id, seat } }, headers: bearer(token) }));
  if (!isView(view, t.game)) throw new Error(`a ${view.game} view at a ${t.game} table`);
  return view;
}

/** The seats a table waits for now (its `awaiting.seats`). */
export const awaited = (table: Schemas["PublicTable"]): number[] => table.awaiting.seats;

/**
 * One move for the seat whose view this is, if it may move: the first card
 * of its hand passed (My Ship Sails), the first playable card played or a
 * pass (Sevens), the discard taken or the stock drawn (May I?). Returns what
 * it did, or null when the view offers the seat no move.
 */
export async function playOnce(api: Api, t: Seated<Game>, view: Schemas["SeatView"]): Promise<string | null> {
  const token = t.seats[view.seat];
  if (token === undefined || view.round === null) return null;
  const headers = bearer(token);
  const round_no = view.round;
  switch (view.game) {
    case "my-ship-sails": {
      const card = view.hand[0];
      if (!view.to_choose || view.exchange === null || card === undefined) return null;
      const path = { table_id: t.id, round_no, exchange_no: view.exchange, seat: view.seat };
      const passed = ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", { params: { path }, body: { cards: [card] }, headers }));
      return `passed ${card}${passed.resolved ? ", exchange resolved" : ""}`;
    }
    case "sevens": {
      if (!view.on_turn || view.turn === null) return null;
      const card = view.playable[0];
      const body: Schemas["Turn"] = card === undefined ? { pass: true } : { play: card, last_card: view.must_announce };
      const path = { table_id: t.id, round_no, turn_no: view.turn };
      const turn = ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", { params: { path }, body, headers }));
      return turn.action === "play" ? `played ${turn.card}` : `passed, paid ${turn.chips_paid}`;
    }
    case "may-i": {
      if (!view.on_turn || view.move === null) return null;
      const body: Schemas["Move"] | null = view.may.includes("take_discard")
        ? { take_discard: true }
        : view.may.includes("draw")
          ? { draw: true }
          : null;
      if (body === null) return null;
      const path = { table_id: t.id, round_no, move_no: view.move };
      const moved = ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", { params: { path }, body, headers }));
      return `${moved.action}, step ${moved.step}`;
    }
  }
}

/**
 * A move the table does not await, sent all the same by the seat whose view
 * this is: a pass for the first exchange (My Ship Sails, once it resolved), a
 * Sevens pass or a May I? draw off turn. Returns the refusal's code (typed:
 * one of the spec's), or null if the move was taken.
 */
export async function outOfTurn(api: Api, t: Seated<Game>, view: Schemas["SeatView"]): Promise<Code | null> {
  const token = t.seats[view.seat];
  if (token === undefined || view.round === null) return null;
  const headers = bearer(token);
  const round_no = view.round;
  try {
    switch (view.game) {
      case "my-ship-sails": {
        const path = { table_id: t.id, round_no, exchange_no: 1, seat: view.seat };
        ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", { params: { path }, body: { cards: view.hand.slice(0, 1) }, headers }));
        break;
      }
      case "sevens": {
        const path = { table_id: t.id, round_no, turn_no: view.turn ?? 1 };
        ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", { params: { path }, body: { pass: true }, headers }));
        break;
      }
      case "may-i": {
        const path = { table_id: t.id, round_no, move_no: view.move ?? 1 };
        ok(await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", { params: { path }, body: { draw: true }, headers }));
        break;
      }
    }
  } catch (error) {
    if (error instanceof Refused && error.problem !== undefined) return error.problem.code;
    throw error;
  }
  return null;
}

/** One line for a public event: a switch over every event type of the spec. */
export function describe(event: Event): string {
  switch (event.type) {
    case "table-created":
      return `table of ${event.seats} seats (${event.variant})`;
    case "first-dealer-drawn":
      return `first dealer drawn in ${event.draw.length} pass(es)`;
    case "seat-joined":
    case "seat-left":
    case "token-reissued":
      return `${event.type}: ${event.name}`;
    case "seat-bot":
      return `seat ${event.seat} to a ${event.kind} bot`;
    case "seat-bot-removed":
      return `seat ${event.seat} back from its bot${event.open ? " (open)" : ""}`;
    case "seat-back":
      return `seat ${event.seat} is back`;
    case "move-timed-out":
      return `seat ${event.seat} timed out: ${event.action}`;
    case "clock-paused":
      return `clock paused after ${event.moves} moves`;
    case "round-dealt":
      return `round ${event.round} dealt by seat ${event.dealer}`;
    case "round-abandoned":
    case "round-blocked":
      return `round ${event.round}: ${event.type}`;
    case "pass-chosen":
      return `seat ${event.seat} chose its pass for exchange ${event.exchange}`;
    case "exchange-resolved":
      return `exchange ${event.exchange} resolved`;
    case "claim-accepted":
      return `seat ${event.seat} claims with ${event.hand.join(" ")}`;
    case "claim-rejected":
      return `seat ${event.seat}'s claim refused`;
    case "round-won":
    case "round-void":
    case "round-over":
      return `round ${event.round} over`;
    case "match-won":
    case "match-finished":
    case "match-abandoned":
      return `match ${event.status}: ${event.winners.join(", ")}`;
    case "card-played":
      return `seat ${event.seat} played ${event.card}`;
    case "passed":
    case "last-card-missed":
      return `seat ${event.seat} paid ${event.chips}`;
    case "discard-taken":
    case "discard-declined":
    case "discarded":
      return `seat ${event.seat}: ${event.type} ${event.card}`;
    case "stock-drawn":
      return `seat ${event.seat} drew ${event.count}`;
    case "laid-down":
      return `seat ${event.seat} laid down ${event.melds.length} melds`;
    case "laid-off":
      return `seat ${event.seat} laid ${event.card} off on meld ${event.meld}`;
    case "may-i-offered":
    case "may-i-asked":
      return `May I? ${event.card} (offer ${event.offer})`;
    case "may-i-answered":
      return `seat ${event.seat} ${event.allow ? "allows" : "denies"}`;
    case "may-i-given":
      return `seat ${event.seat} gets ${event.card} and ${event.stock_cards}`;
    case "may-i-lapsed":
      return `offer ${event.offer} lapsed`;
    case "stock-reshuffled":
      return `stock reshuffled: ${event.cards} cards`;
    case "went-out":
      return `seat ${event.seat} went out`;
    case "lay-off-done":
      return `seat ${event.seat} done${event.auto ? " (skipped)" : ""}`;
    default: {
      // Every type is handled: a new type in the spec fails this line's
      // compile. At run time a newer service's type is skipped.
      const unknown: never = event;
      return `(${String(unknown)})`;
    }
  }
}

/** The table's public events so far, each described. */
export async function log(api: Api, t: Seated<Game>): Promise<string[]> {
  const page = ok(await api.GET("/v1/tables/{table_id}/events", { params: { path: { table_id: t.id }, query: { after: 0 } } }));
  return page.events.map(describe);
}
