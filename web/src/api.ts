// The page's calls: the TypeScript client package (clients/typescript,
// card-referee-client: openapi-fetch over the types generated from
// openapi.yaml, and connectSeat), and where the page keeps its tokens.
import { createApi, type Api, type Schemas } from "../../clients/typescript/src/index.js";

export { bearer, connectSeat, connectTable, ok, Refused } from "../../clients/typescript/src/index.js";
export type { Live, Problem, PublicTable, Schemas, SeatView, TableEvent } from "../../clients/typescript/src/index.js";

/** The API of this page's own origin (no token: each call names its own). */
export const api: Api = createApi(location.origin);

// Tokens live in localStorage, per table: a reload keeps the seat. They are
// never put in a URL (join codes travel in the link's #fragment, which the
// browser never sends to a server).
export interface Held {
  seat?: number;
  token?: string;
  host?: string;
  codes?: Schemas["JoinCode"][];
}

const KEY = (table: string) => `card-referee:${table}`;

export function held(table: string): Held {
  try {
    return JSON.parse(localStorage.getItem(KEY(table)) ?? "{}") as Held;
  } catch {
    return {};
  }
}

export function hold(table: string, more: Held): Held {
  const next = { ...held(table), ...more };
  localStorage.setItem(KEY(table), JSON.stringify(next));
  return next;
}
