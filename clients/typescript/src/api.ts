// Typed calls to the API: openapi-fetch over the types openapi-typescript
// generates from openapi.yaml (./schema.ts), and the problem+json a refusal
// carries as an exception a page can show.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
export type Schemas = components["schemas"];
export type SeatView = Schemas["SeatView"];
export type PublicTable = Schemas["PublicTable"];
export type TableEvent = Schemas["Event"];
export type Problem = Schemas["Problem"];
export type Api = Client<paths>;

/** What names a seat to the API: its number and its bearer token, as
 * `POST /v1/tables` (`seat_tokens[i]`) and `POST …/join` answer them. */
export interface SeatCredentials {
  seat: number;
  token: string;
}

export interface ApiOptions {
  /** A bearer token sent with every call (a seat's or the host's). */
  token?: string;
  /** The fetch to call with (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>;
}

/** An openapi-fetch client of the API at `base` (`http://127.0.0.1:8000`,
 * no trailing slash needed), sending `token` (if given) as `Authorization:
 * Bearer …` with every call. Each call answers `{data}` or `{error}` (the
 * problem+json); {@link ok} turns the second into a {@link Refused}. */
export function createApi(base: string, options: ApiOptions = {}): Api {
  return createClient<paths>({
    baseUrl: trimBase(base),
    ...(options.token === undefined ? {} : { headers: bearer(options.token) }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}

/** `{Authorization: "Bearer <token>"}`, for one call's `headers`. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A refused call: its HTTP status and the problem+json the API answered
 * (`problem.code` is stable: docs/api.md lists every code). A network
 * failure is not a Refused: fetch's own TypeError is thrown. */
export class Refused extends Error {
  readonly code: string | undefined;

  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.code ?? ""}: ${problem.detail ?? problem.title ?? ""}`.trim());
    this.name = "Refused";
    this.code = problem.code ?? undefined;
  }
}

/** The data of an openapi-fetch answer; throws {@link Refused} for an error. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || answer.data === undefined) {
    const problem = (typeof answer.error === "object" && answer.error !== null ? answer.error : {}) as Problem;
    throw new Refused(answer.response.status, problem);
  }
  return answer.data;
}

export function trimBase(base: string): string {
  return base.replace(/\/+$/, "");
}
