// The generated TypeScript client (openapi-fetch over the types openapi-typescript
// writes from openapi.yaml), and where the page keeps its tokens.
import createClient from "openapi-fetch";
import type { components, paths } from "./api/schema";

export type Schemas = components["schemas"];
export type PublicTable = Schemas["PublicTable"];
export type SeatView = Schemas["SeatView"];
export type Problem = Schemas["Problem"];

export const api = createClient<paths>({ baseUrl: location.origin });

/** A refused call: the problem+json's code and detail, for the page to show. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${problem.code ?? status}: ${problem.detail ?? problem.title ?? ""}`);
  }
}

/** The data of an openapi-fetch answer, or throws {@link Refused}. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || answer.data === undefined) {
    throw new Refused(answer.response.status, (answer.error ?? {}) as Problem);
  }
  return answer.data;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

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
