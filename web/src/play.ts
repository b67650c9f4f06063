// The reference web table (/play): the lobby, creating and joining a table,
// and playing a seat (table.ts), through the public API only, with the
// TypeScript client package (clients/typescript).
import { api, hold, ok, Refused, type Schemas } from "./api";
import { h, render } from "./dom";
import { tick } from "./seats";
import { leaveTable, sayWith, tablePage } from "./table";
import { count, presetName, title } from "./words";

const main = document.getElementById("main") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;

function say(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? "error" : "";
}
sayWith(say);

async function attempt(what: () => Promise<unknown>): Promise<void> {
  try {
    await what();
  } catch (error) {
    say(error instanceof Refused ? (error.problem.detail ?? error.message) : String(error), true);
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
              h("strong", {}, title(t.game ?? "", t.variant ?? "")),
              ` · ${count(t.seats_open ?? 0, "open seat")}: `,
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
    presets.map((p) => h("option", { value: p.name }, `${title(p.game ?? "", p.name ?? "")}: ${p.description}`)),
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
  const seatList = h("ol", { id: "seat-kinds" }) as HTMLElement;
  const kinds: HTMLSelectElement[] = [];
  const layoutSeats = () => {
    const count = Number(seats.value);
    while (kinds.length < count - 1) {
      const i = kinds.length + 1;
      kinds.push(
        h(
          "select",
          { id: `seat-${i}`, "data-key": `seat-${i}`, "aria-label": `Seat ${i}` },
          h("option", { value: "open" }, "a friend (an open seat)"),
          h("option", { value: "basic" }, "a bot that plays well"),
          h("option", { value: "random" }, "a bot that plays at random"),
        ) as HTMLSelectElement,
      );
    }
    kinds.length = Math.max(0, count - 1);
    render(
      seatList,
      h("li", {}, "Seat 1: you"),
      kinds.map((k, i) => h("li", {}, h("label", { for: k.id }, `Seat ${i + 2}: `), k)),
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
      say(`${presetName(chosen.name ?? "")} is not played by four: pick another game or set the seats below.`, true);
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
      " (you and three bots, at once)",
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
  if (parts[0] === "table" && parts[1]) return tablePage(main, parts[1]);
  if (parts[0] === "join" && parts[1]) return joinPage(parts[1], parts[2]);
  return lobby();
}

window.addEventListener("hashchange", () => void attempt(route));
void attempt(route);
setInterval(tick, 250);
