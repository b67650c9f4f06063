// A live seat (or a spectator's table): one object a page holds, which gets
// stream tickets, follows the table's server-sent events, reconnects from the
// last event it saw, and always hands the newest seat view and table view,
// and each public event once, in order. The stream's frames are described in
// docs/guide/live-table.md and in the spec (SeatStreamFrame, TableStreamFrame).
import {
  createApi,
  ok,
  Refused,
  trimBase,
  type Api,
  type Problem,
  type PublicTable,
  type Schemas,
  type SeatCredentials,
  type SeatView,
  type TableEvent,
} from "./api.js";

export type EventsGone = Schemas["EventsGone"];
export type PresenceChange = Schemas["PresenceChange"];

/** Where the connection stands. `closed` is for good (see {@link Ended}). */
export type Status = "connecting" | "open" | "reconnecting" | "closed";

/** Why a connection closed for good. */
export interface Ended {
  /** `closed`: the page called `close()`; `table-deleted` (the stream said
   * so, or the table was gone when the seat's next ticket was refused); `seat-closed` (the
   * seat's token was reissued or the seat left); `refused`: the API refused
   * the seat's token or the table (`problem` says why). */
  reason: "closed" | "table-deleted" | "seat-closed" | "refused";
  problem?: Problem;
}

/** What a page may subscribe to with `on(type, listener)`. */
export interface LiveEvents {
  /** The seat's newest view (never one older than the last handed). */
  view: SeatView;
  /** The table's newest public view (with `followTable`, the default). */
  table: PublicTable;
  /** Each public event of the log, once, in the log's order. */
  event: TableEvent;
  /** The events from `oldest_seq`'s neighbourhood to `last_event` could not be
   * handed (the connection was away longer than the log keeps, or a Redis
   * failover lost the newest ones): the views that follow are taken as they
   * come, and events go on after `last_event`. */
  gap: EventsGone;
  /** A seat's `connected` changed (RULES.md 5.5); the table view is updated too. */
  presence: PresenceChange;
  /** The connection's {@link Status}; with `closed`, why. */
  status: { status: Status; ended?: Ended };
}

/** The constructor of an `EventSource` (the browser's, or a package's in node). */
export type EventSourceClass = new (url: string) => EventSource;

export interface LiveOptions {
  /** Where the events start: after this `seq` (a table's `last_event`) or
   * stream id (`<seq>.<fingerprint>`). Default: after the views read when the
   * connection starts, less `backlog`. */
  after?: number | string;
  /** With no `after`: also hand the (up to) this many events before the
   * views read at the start (a page's recent history). Default 0. */
  backlog?: number;
  /** Keep the table's public view too (`GET /v1/tables/{id}` after each
   * batch of events, and after a gap). Default true. */
  followTable?: boolean;
  /** The pause before the first retry of a failed (re)connection, in ms,
   * doubling on each failure in a row up to `maxDelayMs`, with jitter.
   * A stream that ended after it had carried frames for a second (its
   * lifetime, a server's SIGTERM drain, a worker lost) is opened again at
   * once. Defaults 500, 15000. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** The fetch to call with (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>;
  /** The EventSource to open streams with (default `globalThis.EventSource`;
   * in node, an implementation such as the `eventsource` package's). */
  EventSource?: EventSourceClass;
}

type Listener<T> = (value: T) => void;

/** A stream that carried frames this long (ms) worked: the next opens at once. */
const WORKED_MS = 1000;

/** How long (ms) the table's read waits after an event for the rest of its commit's. */
const BATCH_MS = 20;

/** A live seat (from {@link connectSeat}) or table (from {@link connectTable}). */
export class Live {
  /** The API, calling with the seat's token (for a table: none). */
  readonly api: Api;
  readonly tableId: string;
  readonly seat: number | undefined;
  private readonly base: string;
  private readonly token: string | undefined;
  private readonly options: Required<Pick<LiveOptions, "followTable" | "minDelayMs" | "maxDelayMs">>;
  private readonly Source: EventSourceClass;
  private readonly listeners: { [K in keyof LiveEvents]: Set<Listener<LiveEvents[K]>> } = {
    view: new Set(),
    table: new Set(),
    event: new Set(),
    gap: new Set(),
    presence: new Set(),
    status: new Set(),
  };
  private stream: EventSource | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private opened = false;
  private seq = 0;
  private cursor = "0";
  private viewText = "";
  private rewound = { view: false, table: false };
  private tableRead: "idle" | "reading" | "again" = "idle";
  private currentStatus: Status = "connecting";
  private ending: Ended | undefined;

  /** The seat's newest view (`undefined` for a table, or before the first). */
  view: SeatView | undefined;
  /** The table's newest public view (`undefined` without `followTable`). */
  table: PublicTable | undefined;

  /** Use {@link connectSeat} or {@link connectTable}. */
  constructor(base: string, tableId: string, credentials: SeatCredentials | undefined, options: LiveOptions = {}) {
    this.base = trimBase(base);
    this.tableId = tableId;
    this.seat = credentials?.seat;
    this.token = credentials?.token;
    this.api = createApi(this.base, { token: this.token, fetch: options.fetch });
    this.options = {
      followTable: options.followTable ?? true,
      minDelayMs: options.minDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 15_000,
    };
    const Source = options.EventSource ?? (globalThis as { EventSource?: EventSourceClass }).EventSource;
    if (Source === undefined) {
      throw new TypeError("No EventSource here: pass options.EventSource (in node, e.g. the eventsource package's)");
    }
    this.Source = Source;
  }

  /** Where the connection stands now. */
  get status(): Status {
    return this.currentStatus;
  }

  /** Why it closed, once `status` is `closed`. */
  get ended(): Ended | undefined {
    return this.ending;
  }

  /** The id the next stream starts after (what `Last-Event-ID` would say). */
  get lastEventId(): string {
    return this.cursor;
  }

  /** Call `listener` with each value of `type` from now on; returns the
   * function that stops it. Subscribe right after `await connectSeat(…)`:
   * nothing is handed before the page's code after the `await` runs. */
  on<K extends keyof LiveEvents>(type: K, listener: Listener<LiveEvents[K]>): () => void {
    const set: Set<Listener<LiveEvents[K]>> = this.listeners[type];
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Read the seat's view (and the table's) again, now: after the page's own
   * move, say, whose answer can come before the stream's frame. What is read
   * is kept only if it is not older than what the connection holds. */
  async refresh(): Promise<void> {
    await Promise.all([this.readView(), this.options.followTable ? this.readTable() : undefined]);
  }

  /** Offer a view the page got by a request of its own: kept, and handed to
   * the `view` listeners, only if it is not older than the one held. */
  offer(view: SeatView): void {
    this.takeView(view, false);
  }

  /** Close the stream for good. */
  close(): void {
    this.finish({ reason: "closed" });
  }

  /** Read the views, then open the stream (used once, by the connect functions). */
  async start(after: number | string | undefined, backlog: number): Promise<void> {
    const needTable = this.options.followTable || (after === undefined && this.seat === undefined);
    // Both at once; the seat's refusal first (a token of no table is 401, the table's own read 404).
    const [view, table] = await Promise.allSettled([
      this.seat === undefined ? undefined : this.readView(true),
      needTable ? this.readTable(true) : undefined,
    ]);
    for (const read of [view, table]) if (read.status === "rejected") throw read.reason;
    if (after === undefined) {
      const last = Math.max(this.view?.last_event ?? 0, this.table?.last_event ?? 0);
      after = Math.max(0, last - Math.max(0, backlog));
    }
    this.cursor = String(after);
    this.seq = Number.parseInt(this.cursor, 10) || 0;
    // Opened after the connect function returned, so that the page's listeners are on.
    setTimeout(() => void this.open(), 0);
  }

  // ----- the stream --------------------------------------------------------

  private async open(): Promise<void> {
    if (this.closed()) return;
    this.retryTimer = undefined;
    this.setStatus(this.opened ? "reconnecting" : "connecting");
    let url: string;
    try {
      url = await this.streamUrl();
    } catch (error) {
      if (error instanceof Refused && refusedForGood(error.status)) {
        // A ticket refused because the table went (deleted between two
        // streams: its token is unknown now) is told as the stream tells it.
        const gone = await this.tableGone();
        if (this.closed()) return;
        this.finish(gone ? { reason: "table-deleted" } : { reason: "refused", problem: error.problem });
      } else {
        this.retry(); // the network, a 429 or a 503: try again after a pause
      }
      return;
    }
    if (this.closed()) return; // while the ticket was on its way
    const stream = new this.Source(url);
    this.stream = stream;
    let since: number | undefined; // when its first frame came
    const mine = (handler: (message: MessageEvent) => void) => (message: Event) => {
      if (this.stream !== stream) return; // a frame of a stream already left
      since ??= Date.now();
      handler(message as MessageEvent);
    };
    // A stream that carried frames for a while worked: the next one opens at
    // once. One that ended at once (or never opened) is a failure in a row.
    const worked = () => since !== undefined && Date.now() - since >= WORKED_MS;
    let answered = false; // whether this stream was answered 200
    stream.onopen = () => {
      if (this.stream !== stream) return;
      answered = true;
      this.opened = true;
      this.setStatus("open");
    };
    stream.onmessage = mine((message) => this.takeEvent(message));
    stream.addEventListener("seat", mine((message) => this.takeView(JSON.parse(message.data) as SeatView, true)));
    stream.addEventListener("events-gone", mine((message) => this.takeGap(message)));
    stream.addEventListener("heartbeat", mine(() => undefined));
    for (const type of ["seat-connected", "seat-disconnected"]) {
      stream.addEventListener(type, mine((message) => this.takePresence(JSON.parse(message.data) as PresenceChange)));
    }
    // A spent ticket (the EventSource came back by itself, with its
    // Last-Event-ID, before this object could): a new ticket, a new stream.
    stream.addEventListener("ticket-invalid", mine(() => this.reopen(worked())));
    stream.addEventListener("table-deleted", mine(() => this.finish({ reason: "table-deleted" })));
    stream.addEventListener("seat-closed", mine(() => this.finish({ reason: "seat-closed" })));
    // The stream ended or broke (its lifetime, a drain, a worker lost, the
    // network): the browser would come back with the spent ticket; this
    // object comes back at once with a new one, after the last id it saw.
    stream.onerror = () => {
      if (this.stream !== stream) return;
      if (answered) {
        this.reopen(worked());
        return;
      }
      // Refused (an EventSource tells no status) or the network: a table
      // deleted while no stream of it was open (its `table-deleted` frame
      // went by unseen) answers every stream 404, so ask the table once.
      stream.close();
      void this.tableGone().then((gone) => {
        if (this.stream !== stream) return;
        if (gone) this.finish({ reason: "table-deleted" });
        else this.reopen(false);
      });
    };
  }

  private async streamUrl(): Promise<string> {
    const after = `after=${encodeURIComponent(this.cursor)}`;
    if (this.seat === undefined) {
      return `${this.base}/v1/tables/${encodeURIComponent(this.tableId)}/stream?${after}`;
    }
    const ticket = ok(
      await this.api.POST("/v1/tables/{table_id}/seats/{seat}/tickets", {
        params: { path: { table_id: this.tableId, seat: this.seat } },
      }),
    );
    if (ticket.stream === undefined) throw new TypeError("the ticket's answer has no stream URL");
    return `${this.base}${ticket.stream}&${after}`;
  }

  /** Leave the current stream and open another: at once after a stream that
   * worked, else after a pause that grows with each failure in a row. */
  private reopen(worked: boolean): void {
    this.stream?.close();
    this.stream = undefined;
    if (this.currentStatus === "closed") return;
    if (worked) {
      this.failures = 0;
      this.setStatus("reconnecting");
      void this.open();
    } else {
      this.retry();
    }
  }

  private retry(): void {
    if (this.currentStatus === "closed" || this.retryTimer !== undefined) return;
    this.setStatus("reconnecting");
    const pause = Math.min(this.options.maxDelayMs, this.options.minDelayMs * 2 ** this.failures);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.open(), pause * (0.5 + Math.random() / 2));
  }

  private finish(ended: Ended): void {
    if (this.currentStatus === "closed") return;
    this.stream?.close();
    this.stream = undefined;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.ending = ended;
    this.currentStatus = "closed";
    this.emit("status", { status: "closed", ended });
  }

  private closed(): boolean {
    return this.currentStatus === "closed";
  }

  private setStatus(status: Status): void {
    if (status === this.currentStatus || this.currentStatus === "closed") return;
    this.currentStatus = status;
    this.emit("status", { status });
  }

  // ----- what the stream brings -------------------------------------------

  private takeEvent(message: MessageEvent): void {
    const event = JSON.parse(message.data as string) as TableEvent;
    if (typeof event.seq !== "number" || event.seq <= this.seq) return; // handed already
    this.seq = event.seq;
    this.cursor = message.lastEventId || String(event.seq);
    this.emit("event", event);
    this.tableSoon();
  }

  private takeGap(message: MessageEvent): void {
    const gone = JSON.parse(message.data as string) as EventsGone;
    this.seq = gone.last_event;
    this.cursor = message.lastEventId || String(gone.last_event);
    // The log may have been rewound (a failover lost its newest events): the
    // next views are taken as they come, whatever their last_event.
    this.rewound = { view: true, table: true };
    this.emit("gap", gone);
    this.tableSoon();
  }

  private takePresence(change: PresenceChange): void {
    const seats = this.table?.seats;
    const seat = seats?.find((s) => s.seat === change.seat);
    if (this.table && seats && seat) {
      const connected = change.type === "seat-connected";
      if (seat.connected !== connected) {
        // A copy, so that a page holding the old table sees it unchanged.
        const table = structuredClone(this.table);
        for (const s of table.seats) if (s.seat === change.seat) s.connected = connected;
        this.table = table;
        this.emit("table", table);
      }
    }
    this.emit("presence", change);
  }

  /** Keep `view` if it is not older than the one held (or after a gap, when
   * it comes from the stream); hand it on when it differs. */
  private takeView(view: SeatView, streamed: boolean): void {
    const forced = streamed && this.rewound.view;
    if (!forced && !notOlder(this.view, view)) return;
    if (streamed) this.rewound.view = false;
    const text = JSON.stringify(view);
    if (text === this.viewText) return;
    this.viewText = text;
    this.view = view;
    this.emit("view", view);
  }

  private takeTable(table: PublicTable, forced: boolean): void {
    if (!forced && !notOlder(this.table, table)) return;
    this.table = table;
    this.emit("table", table);
  }

  private async readView(first = false): Promise<void> {
    if (this.seat === undefined) return;
    const answer = await this.api.GET("/v1/tables/{table_id}/seats/{seat}", {
      params: { path: { table_id: this.tableId, seat: this.seat } },
    });
    if (first) {
      this.takeView(ok(answer), false);
    } else if (answer.data !== undefined) {
      this.takeView(answer.data, false);
    }
  }

  /** Whether the table is gone (its public view is 404 `table-not-found`). */
  private async tableGone(): Promise<boolean> {
    try {
      const answer = await this.api.GET("/v1/tables/{table_id}", { params: { path: { table_id: this.tableId } } });
      return answer.response.status === 404 && answer.error?.code === "table-not-found";
    } catch {
      return false; // the network: the token's refusal stands
    }
  }

  private async readTable(first = false): Promise<void> {
    const forced = this.rewound.table;
    this.rewound.table = false;
    const answer = await this.api.GET("/v1/tables/{table_id}", { params: { path: { table_id: this.tableId } } });
    if (first) {
      this.takeTable(ok(answer), true);
    } else if (answer.data !== undefined) {
      this.takeTable(answer.data, forced);
    }
  }

  /** Read the table after this batch of events (one read in flight at a
   * time; events meanwhile ask for one more after it). */
  private tableSoon(): void {
    if (!this.options.followTable || this.currentStatus === "closed") return;
    if (this.tableRead !== "idle") {
      this.tableRead = "again";
      return;
    }
    this.tableRead = "reading";
    // A commit's events come as one write, dispatched one task each: one read for them all.
    setTimeout(async () => {
      try {
        await this.readTable();
      } catch {
        // the network: the next event reads again
      }
      const again = this.tableRead === "again";
      this.tableRead = "idle";
      if (again) this.tableSoon();
    }, BATCH_MS);
  }

  private emit<K extends keyof LiveEvents>(type: K, value: LiveEvents[K]): void {
    const set: Set<Listener<LiveEvents[K]>> = this.listeners[type];
    for (const listener of [...set]) {
      try {
        listener(value);
      } catch (error) {
        // A listener's fault must not stop the others, nor the stream.
        setTimeout(() => {
          throw error;
        }, 0);
      }
    }
  }
}

/** Whether `read` may replace `held`: not older by `last_event`. An answer
 * can arrive after a newer view (another request's, or the stream's, which
 * sends a view only when it changes); had the older one replaced it, the page
 * would show it until the next move. */
export function notOlder(held: { last_event?: number } | undefined, read: { last_event?: number }): boolean {
  return held?.last_event === undefined || (read.last_event ?? 0) >= held.last_event;
}

/** A refusal that no retry can mend: the token (401), the seat (403), the
 * table or the seat gone (404, 410). */
function refusedForGood(status: number): boolean {
  return status === 401 || status === 403 || status === 404 || status === 410;
}

/**
 * Follow a seat live: its view and the table's events, through the seat's
 * stream (`GET …/seats/{seat}/stream` with single-use tickets).
 *
 * Reads the seat's view (and the table's public view) first, so that a bad
 * token or table is a {@link Refused} here, then opens the stream after the
 * views' `last_event` (or `options.after`). From then on it hands the page,
 * through `on("view" | "table" | "event" | "gap" | "presence" | "status")`:
 * the newest seat view (never one older than the last handed), each public
 * event once and in order, and a `gap` when the log could not be followed.
 * When a stream ends (its lifetime, a server draining on SIGTERM, a worker
 * killed, the network) it gets a new ticket and opens a new stream after the
 * last event id it saw (what the browser's own reconnection would send as
 * `Last-Event-ID`, which a spent ticket would refuse); a `ticket-invalid`
 * frame gets the same. Failures in a row wait 0.5 s, 1 s, 2 s … up to 15 s.
 * It closes for good on `table-deleted`, `seat-closed`, or a refused token.
 *
 * @param base the API's origin, e.g. `http://127.0.0.1:8000`
 * @param table the table id
 * @param credentials the seat and its token, as `POST /v1/tables`
 *   (`seat_tokens[i]`) or `POST …/join` answer them (a token alone names no
 *   seat: every seat path holds its number)
 */
export async function connectSeat(
  base: string,
  table: string,
  credentials: SeatCredentials,
  options: LiveOptions = {},
): Promise<Live> {
  const live = new Live(base, table, credentials, options);
  await live.start(options.after, options.backlog ?? 0);
  return live;
}

/** Follow a table's public events live (`GET …/stream`), as a spectator:
 * as {@link connectSeat} without a seat (no view, no ticket). */
export async function connectTable(base: string, table: string, options: LiveOptions = {}): Promise<Live> {
  const live = new Live(base, table, undefined, options);
  await live.start(options.after, options.backlog ?? 0);
  return live;
}
