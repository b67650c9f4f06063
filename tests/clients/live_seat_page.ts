// A front end on another origin that follows one seat (and the table, as a
// spectator) with the TypeScript client's connectSeat and connectTable, and
// records everything they hand it, for tests/clients/test_connect_seat.py.
// The test drives it: it can hold the page's ticket requests (a slow network)
// and hide one stream's end from the client (the browser then reconnects by
// itself with the spent ticket, and the service answers `ticket-invalid`).
import { connectSeat, connectTable, Refused, type Live, type LiveEvents } from "../../clients/typescript/src/index.js";

interface Record {
  events: number[];
  eventIds: string[];
  views: { last_event: number; hand: string[]; round_status: string | null | undefined }[];
  tables: number[];
  gaps: LiveEvents["gap"][];
  statuses: string[];
  presence: string[];
}

const fresh = (): Record => ({ events: [], eventIds: [], views: [], tables: [], gaps: [], statuses: [], presence: [] });
const seen: { seat: Record; table: Record } = { seat: fresh(), table: fresh() };
const lives: { seat?: Live; table?: Live } = {};

// ----- the network, as the test wants it -----------------------------------

let held: Promise<void> | undefined;
let release: () => void = () => undefined;
let heldReads: Promise<void> | undefined;
let releaseReads: () => void = () => undefined;
let ticketsAsked = 0;
let ticketsIssued = 0; // answered 2xx: each must open a stream
const ticketsRefused: string[] = []; // e.g. a 503 while the workers restart
let readsAnswered = 0;
const original = window.fetch.bind(window);
window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = input instanceof Request ? input : new Request(input, init);
  const ticket = request.method === "POST" && request.url.endsWith("/tickets");
  if (ticket) {
    ticketsAsked += 1;
    if (held) await held;
  }
  let answer: Response;
  try {
    answer = await original(input, init);
  } catch (error) {
    if (ticket) ticketsRefused.push("network");
    throw error;
  }
  if (ticket) {
    if (answer.ok) ticketsIssued += 1;
    else ticketsRefused.push(String(answer.status));
  }
  if (request.method === "GET" && /[/]seats[/][0-9]+$/.test(request.url)) {
    // Read now, answered late (a slow network): the stream may be newer by then.
    if (heldReads) await heldReads;
    readsAnswered += 1;
  }
  return answer;
};

// Every EventSource the page opens; `swallow` hides the next end of a seat's
// stream (its error event) from the client, as if the browser came back
// before the client could.
const streams: { url: string; frames: string[]; errors: number }[] = [];
let swallow = false;
let deafen = false; // hide the next `table-deleted` frame of the table's stream
const Native = window.EventSource;
class Recorded extends Native {
  constructor(url: string | URL, init?: EventSourceInit) {
    super(url, init);
    const mine = { url: String(url).replace(/ticket=[^&]*/, "ticket=…"), frames: [] as string[], errors: 0 };
    streams.push(mine);
    let hide = false;
    const seat = String(url).includes("ticket=");
    this.addEventListener("error", (event) => {
      mine.errors += 1;
      if ((swallow && seat) || hide) {
        swallow = false;
        hide = true; // this stream's later errors too: the browser reconnects it itself
        event.stopImmediatePropagation();
      }
    });
    this.addEventListener("table-deleted", (event) => {
      if (deafen && !seat) {
        deafen = false; // as if it came while the spectator was between two streams
        event.stopImmediatePropagation();
      }
    });
    for (const type of ["message", "seat", "events-gone", "ticket-invalid", "heartbeat"]) {
      this.addEventListener(type, (event) => mine.frames.push(`${type} ${(event as MessageEvent).lastEventId}`));
    }
  }
}

// ----- what the client hands the page ----------------------------------------

function listen(live: Live, into: Record): void {
  live.on("event", (event) => {
    into.events.push(event.seq);
    into.eventIds.push(live.lastEventId);
  });
  live.on("view", (view) =>
    into.views.push({ last_event: view.last_event, hand: [...view.hand], round_status: view.round_status }),
  );
  live.on("table", (table) => into.tables.push(table.last_event));
  live.on("gap", (gap) => into.gaps.push(gap));
  live.on("status", ({ status, ended }) => into.statuses.push(ended ? `${status}:${ended.reason}` : status));
  live.on("presence", (change) => into.presence.push(`${change.type} ${change.seat}`));
}

const api = {
  async follow(base: string, table: string, seat: number, token: string): Promise<string> {
    const live = await connectSeat(base, table, { seat, token }, { EventSource: Recorded });
    lives.seat = live;
    listen(live, seen.seat);
    // What it read before the stream opened (listeners only see what follows).
    if (live.view) seen.seat.views.push({ last_event: live.view.last_event, hand: [...live.view.hand], round_status: live.view.round_status });
    if (live.table) seen.seat.tables.push(live.table.last_event);
    const spectator = await connectTable(base, table, { EventSource: Recorded });
    lives.table = spectator;
    listen(spectator, seen.table);
    if (spectator.table) seen.table.tables.push(spectator.table.last_event);
    return live.status;
  },
  /** What connectSeat throws for these credentials: "<status> <code>". */
  async refusal(base: string, table: string, seat: number, token: string): Promise<string> {
    try {
      await connectSeat(base, table, { seat, token }, { EventSource: Recorded });
      return "connected";
    } catch (error) {
      return error instanceof Refused ? `${error.status} ${error.code}` : String(error);
    }
  },
  hold(): void {
    held = new Promise((resolve) => (release = resolve));
  },
  release(): void {
    held = undefined;
    release();
  },
  holdReads(): void {
    heldReads = new Promise((resolve) => (releaseReads = resolve));
  },
  releaseReads(): void {
    heldReads = undefined;
    releaseReads();
  },
  refresh(): void {
    void lives.seat?.refresh();
  },
  swallowNextEnd(): void {
    swallow = true;
  },
  missNextDeletion(): void {
    deafen = true;
  },
  close(): void {
    lives.seat?.close();
    lives.table?.close();
  },
  state() {
    return {
      seen,
      streams,
      ticketsAsked,
      ticketsIssued,
      ticketsRefused,
      readsAnswered,
      seat: lives.seat && { status: lives.seat.status, view: lives.seat.view, table: lives.seat.table?.last_event },
      spectator: lives.table && { status: lives.table.status, table: lives.table.table?.last_event },
    };
  },
};

(window as unknown as { live: typeof api }).live = api;
