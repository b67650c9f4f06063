// The reference web table (/play): the lobby, creating and joining a table,
// and playing a seat, through the public API only, with the generated client.
import { api, bearer, held, hold, ok, Refused, type PublicTable, type Schemas, type SeatView } from "./api";
import { h, render } from "./dom";
import { describe, gamePanel, type Act } from "./games";

const main = document.getElementById("main") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;

function say(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? "error" : "";
}

async function attempt(what: () => Promise<unknown>): Promise<void> {
  try {
    await what();
  } catch (error) {
    say(error instanceof Refused ? error.message : String(error), true);
  }
}

const key = () => ({ "Idempotency-Key": crypto.randomUUID() });

// ----- the lobby and a new table -------------------------------------------

const LOBBY_SHOWN = 20;
const LOBBY_PAGES = 5;

// The lobby's first LOBBY_SHOWN tables: a page may hold fewer than its
// `limit` with `more` (the service drops entries it finds stale on the
// way), so read on from `next_after` while `more`, a few pages at most.
async function listedTables(): Promise<Schemas["LobbyTable"][]> {
  const found: Schemas["LobbyTable"][] = [];
  let after: string | undefined;
  for (let page = 0; page < LOBBY_PAGES && found.length < LOBBY_SHOWN; page++) {
    const query = { limit: LOBBY_SHOWN - found.length, ...(after ? { after } : {}) };
    const listed = await api.GET("/v1/lobby", { params: { query } }).then(ok);
    found.push(...(listed.tables ?? []));
    if (!listed.more || !listed.next_after) break;
    after = listed.next_after;
  }
  return found;
}

async function lobby(): Promise<void> {
  const [games, tables] = await Promise.all([api.GET("/v1/games").then(ok), listedTables()]);
  const presets = (games.games ?? []).flatMap((g) =>
    (g.variants ?? []).map((v) => ({ ...v, title: g.title ?? g.name })),
  );
  const form = createForm(presets);
  render(
    main,
    h("h2", {}, "Open tables"),
    tables.length === 0
      ? h("p", {}, "No listed table has an open seat. Create one below.")
      : h(
          "ul",
          { class: "lobby" },
          tables.map((t) =>
            h(
              "li",
              {},
              h("strong", {}, t.variant ?? ""),
              ` (${t.game}) · ${t.seats_taken} of ${(t.seats_taken ?? 0) + (t.seats_open ?? 0)} seats taken: `,
              (t.seats ?? []).map((s) => s.name ?? "open").join(", "),
              " ",
              h("a", { href: `#/join/${t.table_id}`, "data-key": `join-${t.table_id}` }, "Take a seat"),
            ),
          ),
        ),
    h("h2", {}, "Create a table"),
    form,
  );
}

type Preset = Schemas["Variant"] & { title?: string };

function createForm(presets: Preset[]): HTMLElement {
  const preset = h(
    "select",
    { id: "preset", name: "preset", "data-key": "preset" },
    presets.map((p) => h("option", { value: p.name }, `${p.title}: ${p.name} (${p.description})`)),
  ) as HTMLSelectElement;
  const seats = h("input", { id: "seats", type: "number", min: 2, max: 10, value: 4, "data-key": "seats" }) as HTMLInputElement;
  const name = h("input", { id: "name", required: true, maxlength: 40, value: "", "data-key": "name", autocomplete: "nickname" }) as HTMLInputElement;
  const listed = h("input", { id: "listed", type: "checkbox", "data-key": "listed" }) as HTMLInputElement;
  const window = h("input", { id: "window", type: "number", min: 0, max: 60000, step: 500, value: 5000, "data-key": "window" }) as HTMLInputElement;
  const windowRow = h("p", { id: "window-row" }, h("label", { for: "window" }, "May I? window (ms) "), window);
  const clocked = h("input", { id: "clocked", type: "checkbox", "data-key": "clocked" }) as HTMLInputElement;
  const turnSeconds = h("input", { id: "turn-seconds", type: "number", min: 1, max: 3600, value: 30, "data-key": "turn-seconds" }) as HTMLInputElement;
  const botDelay = h("input", { id: "bot-delay", type: "number", min: 0, max: 60000, step: 100, value: 600, "data-key": "bot-delay" }) as HTMLInputElement;
  // Seat 0 is yours; each other seat is open (a friend joins by link) or a bot.
  const seatList = h("ol", { id: "seat-kinds", start: 0 }) as HTMLElement;
  const kinds: HTMLSelectElement[] = [];
  const layoutSeats = () => {
    const count = Number(seats.value);
    while (kinds.length < count - 1) {
      const i = kinds.length + 1;
      kinds.push(
        h(
          "select",
          { id: `seat-${i}`, "data-key": `seat-${i}`, "aria-label": `Seat ${i}` },
          h("option", { value: "open" }, "a person (open seat)"),
          h("option", { value: "basic" }, "bot: basic"),
          h("option", { value: "random" }, "bot: random"),
        ) as HTMLSelectElement,
      );
    }
    kinds.length = Math.max(0, count - 1);
    render(
      seatList,
      h("li", {}, "you"),
      kinds.map((k, i) => h("li", {}, h("label", { for: k.id }, `Seat ${i + 1}: `), k)),
    );
  };
  const fit = () => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (!chosen) return;
    seats.min = String(chosen.min_players);
    seats.max = String(chosen.max_players);
    const n = Number(seats.value);
    if (n < (chosen.min_players ?? 2) || n > (chosen.max_players ?? 10)) seats.value = String(chosen.min_players);
    windowRow.hidden = chosen.game !== "may-i";
    layoutSeats();
  };
  preset.addEventListener("change", fit);
  seats.addEventListener("change", layoutSeats);
  seats.addEventListener("input", layoutSeats);
  fit();
  type Player = Schemas["CreateTable"]["players"][number];
  const create = async (players: Player[], options: Record<string, unknown>) => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (chosen?.game === "may-i") options.may_i_window_ms = Number(window.value);
    if (clocked.checked) options.turn_timeout_ms = Number(turnSeconds.value) * 1000;
    if (botDelay.value !== "") options.bot_delay_ms = Number(botDelay.value);
    const created = ok(
      await api.POST("/v1/tables", {
        body: {
          variant: preset.value,
          players,
          listed: listed.checked,
          ...(Object.keys(options).length ? { options } : {}),
        } as Schemas["CreateTable"],
        headers: key(),
      }),
    );
    const id = created.table_id as string;
    hold(id, {
      seat: created.seat_tokens?.[0]?.seat,
      token: created.seat_tokens?.[0]?.token,
      host: created.host_token,
      codes: created.join_codes,
    });
    location.hash = `#/table/${id}`;
  };
  const me = () => name.value.trim() || "You";
  const submit = async (event: Event) => {
    event.preventDefault();
    const others = kinds.map((k): Player => (k.value === "open" ? null : { bot: k.value as "basic" | "random" }));
    await create([me(), ...others], {});
  };
  // One click to a game: you and three basic bots at the chosen preset.
  const quick = async () => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (chosen && ((chosen.min_players ?? 2) > 4 || (chosen.max_players ?? 10) < 4)) {
      say(`${chosen.name} is not played by four: pick another preset or set the seats below.`, true);
      return;
    }
    await create([me(), { bot: "basic" }, { bot: "basic" }, { bot: "basic" }], {});
  };
  return h(
    "form",
    { id: "create", onsubmit: (e: Event) => attempt(() => submit(e)) },
    h("p", {}, h("label", { for: "preset" }, "Game and preset "), preset),
    h("p", {}, h("label", { for: "name" }, "Your name "), name),
    h(
      "p",
      {},
      h("button", { type: "button", id: "play-bots", "data-key": "play-bots", onclick: () => attempt(quick) }, "Play against 3 bots"),
      " (you and three basic bots, now)",
    ),
    h("p", {}, h("label", { for: "seats" }, "Seats "), seats),
    seatList,
    h("p", {}, listed, h("label", { for: "listed" }, " List it in the lobby (anyone may take an open seat)")),
    h(
      "p",
      {},
      clocked,
      h("label", { for: "clocked" }, " Turn clock: "),
      turnSeconds,
      h("label", { for: "turn-seconds" }, " s per move (then the default move is made and the seat is away)"),
    ),
    windowRow,
    h("p", {}, h("label", { for: "bot-delay" }, "Bots think for (ms) "), botDelay),
    h("p", {}, h("button", { type: "submit", id: "create-table", "data-key": "create-table" }, "Create the table")),
  );
}

// ----- joining ---------------------------------------------------------------

function joinPage(table: string, code: string | undefined): void {
  const name = h("input", { id: "join-name", required: true, maxlength: 40, "data-key": "join-name" }) as HTMLInputElement;
  const submit = async (event: Event) => {
    event.preventDefault();
    const joined = ok(
      await api.POST("/v1/tables/{table_id}/join", {
        params: { path: { table_id: table } },
        body: { name: name.value.trim(), ...(code ? { code } : {}) },
        headers: key(),
      }),
    );
    hold(table, { seat: joined.seat, token: joined.token });
    location.hash = `#/table/${table}`;
  };
  render(
    main,
    h("h2", {}, "Take a seat"),
    h(
      "form",
      { id: "join", onsubmit: (e: Event) => attempt(() => submit(e)) },
      h("p", {}, h("label", { for: "join-name" }, "Your name "), name),
      h("p", {}, h("button", { type: "submit", id: "join-table", "data-key": "join-table" }, "Join")),
    ),
  );
  name.focus();
}

// ----- a table -----------------------------------------------------------------

interface Shown {
  id: string;
  table?: PublicTable;
  view?: SeatView;
  feed: string[];
  picked: Set<string>;
  melds: string[][];
  stream?: EventSource;
  lastId: string;
  refreshing?: number;
  /** The log was rewound (`events-gone`): the next table read is taken even if older. */
  rewound?: boolean;
}

/** Whether `read`, a view a request answered, may replace `shown`. An answer
 * can arrive after a newer view (another request's, or the stream's, which
 * sends a view only when it changes): had the older one replaced it, the page
 * would show it until the next move, for good when that move is its own. */
function notOlder(shown: { last_event?: number } | undefined, read: { last_event?: number }): boolean {
  return shown?.last_event === undefined || (read.last_event ?? 0) >= shown.last_event;
}

let shown: Shown | undefined;

function leaveTable(): void {
  shown?.stream?.close();
  if (shown?.refreshing) clearTimeout(shown.refreshing);
  shown = undefined;
}

async function tablePage(id: string): Promise<void> {
  const state: Shown = { id, feed: [], picked: new Set(), melds: [], lastId: "" };
  shown = state;
  const mine = held(id);
  state.table = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: id } } }));
  if (mine.token !== undefined && mine.seat !== undefined) {
    state.view = ok(
      await api.GET("/v1/tables/{table_id}/seats/{seat}", {
        params: { path: { table_id: id, seat: mine.seat } },
        headers: bearer(mine.token),
      }),
    );
  }
  const last = state.table.last_event ?? 0;
  const recent = ok(
    await api.GET("/v1/tables/{table_id}/events", {
      params: { path: { table_id: id }, query: { after: Math.max(0, last - 20), limit: 100 } },
    }),
  );
  for (const event of recent.events ?? []) state.feed.unshift(describe(event, state.table));
  state.lastId = String(last);
  draw();
  await follow(state);
}

/** The seat's stream (or the public one): each event, then the seat's view. */
async function follow(state: Shown): Promise<void> {
  const mine = held(state.id);
  let url = `/v1/tables/${state.id}/stream?after=${state.lastId}`;
  if (mine.token !== undefined && mine.seat !== undefined) {
    const ticket = ok(
      await api.POST("/v1/tables/{table_id}/seats/{seat}/tickets", {
        params: { path: { table_id: state.id, seat: mine.seat } },
        headers: bearer(mine.token),
      }),
    );
    url = `${ticket.stream}&after=${state.lastId}`;
  }
  if (shown !== state) return;
  const stream = new EventSource(url);
  state.stream = stream;
  stream.onmessage = (message) => {
    state.lastId = message.lastEventId || state.lastId;
    const event = JSON.parse(message.data) as Record<string, unknown>;
    state.feed.unshift(describe(event, state.table));
    state.feed.length = Math.min(state.feed.length, 60);
    refreshSoon(state);
  };
  stream.addEventListener("seat", (message) => {
    showView(state, JSON.parse((message as MessageEvent).data) as SeatView);
    draw();
  });
  stream.addEventListener("events-gone", () => {
    state.rewound = true;
    refreshSoon(state);
  });
  // A spent ticket (the EventSource came back by itself): a new ticket, a new stream.
  stream.addEventListener("ticket-invalid", () => {
    stream.close();
    if (shown === state) void attempt(() => follow(state));
  });
}

function refreshSoon(state: Shown): void {
  if (state.refreshing) return;
  state.refreshing = window.setTimeout(async () => {
    state.refreshing = undefined;
    await attempt(async () => {
      const table = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: state.id } } }));
      if (state.rewound || notOlder(state.table, table)) state.table = table;
      state.rewound = false;
      if (shown === state) draw();
    });
  }, 60);
}

/** Reads the seat's view again after a move (the stream brings it too). */
async function reread(state: Shown): Promise<void> {
  const mine = held(state.id);
  const [table, view] = await Promise.all([
    api.GET("/v1/tables/{table_id}", { params: { path: { table_id: state.id } } }).then(ok),
    mine.token !== undefined && mine.seat !== undefined
      ? api
          .GET("/v1/tables/{table_id}/seats/{seat}", {
            params: { path: { table_id: state.id, seat: mine.seat } },
            headers: bearer(mine.token),
          })
          .then(ok)
      : Promise.resolve(undefined),
  ]);
  if (shown !== state) return;
  if (notOlder(state.table, table)) state.table = table;
  if (view && notOlder(state.view, view)) showView(state, view);
  draw();
}

/** Takes `view` as the seat's view. A pick is a card's place in the hand the
 * page drew, so the picks end when the seat's move, hand or pass changes:
 * not when a move's answer arrives, which can come after the stream's newer
 * view and would clear the picks made in it. A refused move keeps them. */
function showView(state: Shown, view: SeatView): void {
  const scope = (v?: SeatView) => JSON.stringify([v?.hand, v?.move, v?.exchange, v?.to_choose, v?.pending]);
  if (scope(view) !== scope(state.view)) state.picked.clear();
  state.view = view;
}

function draw(): void {
  const state = shown;
  if (!state?.table) return;
  const table = state.table;
  const mine = held(state.id);
  const act: Act = async (what) => {
    await attempt(async () => {
      await what();
      say("");
      await reread(state);
    });
  };
  const seats = table.seats ?? [];
  const round = table.round;
  const waiting = new Set(table.awaiting?.seats ?? []);
  render(
    main,
    h(
      "section",
      { class: "head", "aria-label": "table", id: "table", "data-last-event": table.last_event, "data-view-event": state.view?.last_event ?? "" },
      h("h2", {}, `${table.variant} · ${table.game}`, round ? ` · round ${round.number}` : ""),
      h("p", { id: "awaiting" }, awaitingText(table), clock(table.awaiting?.until_ms)),
      h(
        "ol",
        { class: "seats", start: 0, id: "seats" },
        seats.map((s, i) =>
          h(
            "li",
            { class: [waiting.has(i) ? "waiting" : "", i === mine.seat ? "me" : ""].join(" "), "data-seat": i },
            h("span", { class: "name" }, s.name ?? "open seat"),
            i === mine.seat ? " (you)" : "",
            i === table.dealer ? " · dealer" : "",
            s.cards !== undefined && round ? ` · ${s.cards} cards` : "",
            s.chips !== undefined && s.chips !== null ? ` · ${s.chips} chips` : "",
            s.wins !== undefined ? ` · ${s.wins} wins` : "",
            s.points !== undefined && table.game !== "my-ship-sails" ? ` · ${s.points} points` : "",
            s.laid_down ? " · laid down" : "",
            badges(s as Record<string, unknown>),
            waiting.has(i) ? h("span", { class: "badge" }, "to move") : "",
            waiting.has(i) ? clock(s.until_ms) : "",
          ),
        ),
      ),
    ),
    hostPanel(state, act),
    gamePanel({ table, view: state.view, picked: state.picked, melds: state.melds, act, draw, id: state.id }),
    resultPanel(table),
    h(
      "section",
      { class: "side" },
      h("h3", {}, "Standings"),
      h(
        "ol",
        { id: "standings" },
        (table.standings ?? []).map((s) =>
          h("li", {}, `${s.name ?? "open"}: `, table.game === "my-ship-sails" ? `${s.wins} wins` : `${s.points} points`, s.chips ? `, ${s.chips} chips` : ""),
        ),
      ),
      h("h3", {}, "Events"),
      h("ol", { id: "feed", reversed: true, "aria-live": "polite" }, state.feed.slice(0, 30).map((line) => h("li", {}, line))),
    ),
  );
}

/** Fields that other issues add to a seat (bots, presence): shown when there. */
function badges(seat: Record<string, unknown>): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (seat.bot) out.push(h("span", { class: "badge bot", title: `a ${seat.bot} bot plays this seat` }, `bot: ${seat.bot}`));
  if (seat.away || seat.connected === false) out.push(h("span", { class: "badge away" }, "away"));
  return out;
}

function awaitingText(table: PublicTable): string {
  const names = (table.awaiting?.seats ?? []).map((s) => table.seats?.[s]?.name ?? `seat ${s}`);
  const action = table.awaiting?.action ?? "";
  if (table.match?.status && table.match.status !== "in-progress") return `The match is over (${table.match.status}).`;
  if ((table.open_seats ?? []).length > 0) return `Waiting for players: seats ${table.open_seats?.join(", ")} are open.`;
  if (action === "deal") return "Waiting for the host to deal.";
  return names.length ? `Waiting for ${names.join(", ")} to ${action}.` : action;
}

/** A countdown to ``until`` (a claim window, a May I? window, a turn's clock). */
function clock(until: number | null | undefined): HTMLElement | string {
  if (!until) return "";
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return h("span", { class: "clock", "data-until": until }, ` ⏱ ${left} s`);
}

setInterval(() => {
  for (const element of document.querySelectorAll<HTMLElement>(".clock")) {
    const left = Math.max(0, Math.ceil((Number(element.dataset.until) - Date.now()) / 1000));
    element.textContent = ` ⏱ ${left} s`;
  }
}, 500);

function hostPanel(state: Shown, act: Act): HTMLElement | string {
  const mine = held(state.id);
  const table = state.table as PublicTable;
  const links = (mine.codes ?? []).filter((c) => c.seat === null || (table.open_seats ?? []).includes(c.seat as number));
  const share = links.map((c) => {
    const url = `${location.origin}/play#/join/${state.id}/${c.code}`;
    return h(
      "li",
      {},
      c.seat === null ? "Any open seat: " : `Seat ${c.seat}: `,
      h("input", { readonly: true, value: url, class: "link", "aria-label": `join link for seat ${c.seat}`, "data-seat": c.seat }),
      " ",
      h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(url), "data-key": `copy-${c.seat}` }, "Copy"),
    );
  });
  const parts: (HTMLElement | string)[] = [];
  if (share.length) parts.push(h("p", {}, "Send each friend a link: it takes one seat."), h("ul", { id: "links" }, share));
  if (mine.host) {
    const canDeal =
      (table.open_seats ?? []).length === 0 &&
      table.match?.status === "in-progress" &&
      (table.round === null || table.round === undefined || table.round.status === "over");
    if (canDeal) {
      parts.push(
        h(
          "button",
          {
            id: "deal",
            "data-key": "deal",
            onclick: () =>
              act(async () => {
                ok(await api.POST("/v1/tables/{table_id}/rounds", { params: { path: { table_id: state.id } }, headers: { ...bearer(mine.host as string), ...key() } }));
              }),
          },
          table.round ? "Deal the next round" : "Deal",
        ),
      );
    }
  }
  return parts.length ? h("section", { class: "host", "aria-label": "host" }, parts) : "";
}

function resultPanel(table: PublicTable): HTMLElement | string {
  const result = table.last_result as Record<string, unknown> | null | undefined;
  if (!result) return "";
  const seats = table.seats ?? [];
  const name = (s: unknown) => seats[Number(s)]?.name ?? `seat ${s}`;
  const winners = (result.winners as number[] | undefined) ?? (result.winner !== undefined && result.winner !== null ? [result.winner] : []);
  const out = result.out as number | null | undefined;
  const lines: (HTMLElement | string)[] = [
    h("h3", {}, `Round ${result.round} result`),
    h(
      "p",
      { id: "result-winners" },
      winners.length ? `Won by ${(winners as unknown[]).map(name).join(", ")}` : out !== undefined && out !== null ? `${name(out)} went out` : "No winner",
      result.abandoned ? " (abandoned)" : "",
    ),
  ];
  const perSeat = ["chips", "points", "cards_left", "penalties"].filter((k) => Array.isArray(result[k]) && (result[k] as unknown[]).length === seats.length);
  if (perSeat.length) {
    lines.push(
      h(
        "table",
        { class: "result" },
        h("tr", {}, h("th", {}, "seat"), perSeat.map((k) => h("th", {}, k.replace("_", " ")))),
        seats.map((s, i) => h("tr", {}, h("td", {}, s.name ?? ""), perSeat.map((k) => h("td", {}, String((result[k] as unknown[])[i] ?? ""))))),
      ),
    );
  }
  for (const shown of (result.hands as { seat: number; cards: string[] }[] | undefined) ?? []) {
    lines.push(h("p", {}, `${name(shown.seat)} showed ${shown.cards.join(" ")}`));
  }
  // A deal proof (when the service gives one): what a player checks the deal against.
  for (const [k, v] of Object.entries(result)) {
    if (/proof|seed|commit/.test(k)) lines.push(h("details", { class: "proof" }, h("summary", {}, `Deal proof (${k})`), h("pre", {}, JSON.stringify(v, null, 1))));
  }
  return h("section", { class: "result", id: "result", "aria-label": "last result" }, lines);
}

// ----- keys and routes ------------------------------------------------------------

document.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement;
  if (target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    const cards = [...document.querySelectorAll<HTMLElement>("#hand button")];
    const at = cards.indexOf(target);
    if (cards.length) {
      const next = at < 0 ? 0 : (at + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
      cards[next].focus();
      event.preventDefault();
    }
    return;
  }
  const button = document.querySelector<HTMLButtonElement>(`button[data-shortcut="${CSS.escape(event.key.toLowerCase())}"]:not([disabled])`);
  if (button) {
    event.preventDefault();
    button.click();
  }
});

async function route(): Promise<void> {
  leaveTable();
  say("");
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "table" && parts[1]) return tablePage(parts[1]);
  if (parts[0] === "join" && parts[1]) return joinPage(parts[1], parts[2]);
  return lobby();
}

window.addEventListener("hashchange", () => void attempt(route));
void attempt(route);
