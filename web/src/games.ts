// Each game's part of the table: the seat's hand and what it may do now.
import { api, bearer, held, ok, type PublicTable, type Schemas, type SeatView } from "./api";
import { label, red, sorted, spoken } from "./cards";
import { h } from "./dom";

/** Run a call, then read the table again (the new view clears the picks). */
export type Act = (what: () => Promise<unknown>) => Promise<void>;

export interface Context {
  id: string;
  table: PublicTable;
  view?: SeatView;
  picked: Set<string>;
  melds: string[][];
  act: Act;
  draw: () => void;
}

/** A context whose table and view are game `G`'s (narrowed by their `game`). */
type Of<G extends PublicTable["game"]> = Omit<Context, "table" | "view"> & {
  table: Extract<PublicTable, { game: G }>;
  view?: Extract<SeatView, { game: G }>;
};

/** A hand, sorted by suit; ``marked`` cards are highlighted (playable, passable). */
function hand(ctx: Context, marked: Set<string> | "all", onPick: (card: string, index: number) => void): HTMLElement {
  const cards = sorted(ctx.view?.hand ?? []);
  return h(
    "div",
    { id: "hand", role: "group", "aria-label": "your hand" },
    cards.map((card, i) => {
      const playable = marked === "all" || marked.has(card);
      const picked = ctx.picked.has(`${card}#${i}`);
      return h(
        "button",
        {
          type: "button",
          class: ["card", red(card) ? "red" : "", playable ? "playable" : "dim", picked ? "picked" : ""].join(" "),
          "data-card": card,
          "data-key": `card-${card}-${i}`,
          "aria-pressed": picked ? "true" : "false",
          "aria-label": spoken(card) + (playable ? "" : ", not playable now"),
          onclick: () => onPick(card, i),
        },
        label(card),
      );
    }),
  );
}

const pickedCards = (ctx: Context) => [...ctx.picked].map((k) => k.split("#")[0]);

function toggle(ctx: Context, card: string, index: number, most: number): void {
  const k = `${card}#${index}`;
  if (ctx.picked.has(k)) ctx.picked.delete(k);
  else {
    if (ctx.picked.size >= most) ctx.picked.clear();
    ctx.picked.add(k);
  }
  ctx.draw();
}

function action(name: string, shortcut: string, run: () => void, enabled = true): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: "action",
      "data-action": name,
      "data-key": `action-${name}`,
      "data-shortcut": shortcut,
      "aria-keyshortcuts": shortcut.toUpperCase(),
      disabled: !enabled,
      onclick: run,
    },
    name,
    h("kbd", {}, shortcut.toUpperCase()),
  );
}

const mine = (ctx: Context) => held(ctx.id);
const auth = (ctx: Context) => bearer(mine(ctx).token as string);
const path = (ctx: Context) => ({ table_id: ctx.id });

export function gamePanel(ctx: Context): HTMLElement | string {
  const { table, view } = ctx;
  if (!table.round) return "";
  let panel: (HTMLElement | string)[] = [];
  // Each game's panel takes its game's table and view: `game` narrows them.
  if (table.game === "my-ship-sails" && (view === undefined || view.game === table.game)) panel = ship({ ...ctx, table, view });
  else if (table.game === "sevens" && (view === undefined || view.game === table.game)) panel = sevens({ ...ctx, table, view });
  else if (table.game === "may-i" && (view === undefined || view.game === table.game)) panel = mayI({ ...ctx, table, view });
  return h("section", { class: `game ${table.game}`, "aria-label": "play" }, panel);
}

// ----- My Ship Sails ----------------------------------------------------------

function ship(ctx: Of<"my-ship-sails">): (HTMLElement | string)[] {
  const round = ctx.table.round!;
  const view = ctx.view;
  const count = ctx.table.options.pass_count;
  const out: (HTMLElement | string)[] = [
    h("p", { id: "state" }, `Exchange ${round.exchange ?? "-"} · passing ${round.direction ?? ""} · ${round.status}`, round.window_closes_at_ms ? " · claim window open" : ""),
  ];
  if (!view) return out;
  const choosing = Boolean(view.to_choose) && round.status === "passing";
  out.push(hand(ctx, choosing ? "all" : new Set(), (card, i) => choosing && toggle(ctx, card, i, count)));
  if (view.pending?.length) out.push(h("p", { id: "pending" }, `Your pass: ${view.pending.map(label).join(" ")} (waiting for the others)`));
  if (view.received?.length) out.push(h("p", { id: "received" }, `Received: ${view.received.map(label).join(" ")}`));
  const cards = pickedCards(ctx);
  const buttons = [
    action(
      cards.length === count ? `Pass ${cards.map(label).join(" ")}` : `Pass (pick ${count})`,
      "p",
      () =>
        ctx.act(async () => {
          ok(
            await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", {
              params: { path: { ...path(ctx), round_no: round.number!, exchange_no: view.exchange!, seat: view.seat! } },
              body: { cards },
              headers: auth(ctx),
            }),
          );
        }),
      choosing && cards.length === count,
    ),
  ];
  const options = ctx.table.options;
  if (options.declaration !== "automatic") {
    buttons.push(
      action(options.call || "Claim", "c", () =>
        ctx.act(async () => {
          ok(
            await api.POST("/v1/tables/{table_id}/rounds/{round_no}/claims", {
              params: { path: { ...path(ctx), round_no: round.number! } },
              headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() },
            }),
          );
        }),
        round.status !== "over",
      ),
    );
  }
  out.push(h("p", { class: "actions" }, buttons));
  return out;
}

// ----- Sevens -----------------------------------------------------------------

function sevens(ctx: Of<"sevens">): (HTMLElement | string)[] {
  const round = ctx.table.round!;
  const view = ctx.view;
  const rows = round.layout ?? [];
  const out: (HTMLElement | string)[] = [
    h("p", { id: "state" }, `Turn ${round.turn ?? "-"} · pot ${round.pot ?? 0} · ${round.status}`),
    h(
      "ol",
      { id: "layout", "aria-label": "layout" },
      rows.length === 0 ? h("li", {}, "The layout is empty: the opening seven comes first.") : "",
      rows.map((r) => h("li", { "data-suit": r.suit, class: red(r.low ?? "") ? "red" : "" }, `${label(r.low ?? "")} … ${label(r.high ?? "")}`)),
    ),
  ];
  if (!view) return out;
  const playable = new Set(view.playable ?? []);
  const play = (card: string) =>
    ctx.act(async () => {
      ok(
        await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
          params: { path: { ...path(ctx), round_no: round.number!, turn_no: view.turn! } },
          body: { play: card, ...(view.must_announce ? { last_card: true } : {}) },
          headers: auth(ctx),
        }),
      );
    });
  out.push(hand(ctx, view.on_turn ? playable : new Set(), (card) => view.on_turn && playable.has(card) && play(card)));
  out.push(
    h(
      "p",
      { class: "actions" },
      view.on_turn ? (playable.size ? "Your turn: pick a highlighted card. " : "Your turn: nothing fits. ") : "",
      action(
        "Pass",
        "s",
        () =>
          ctx.act(async () => {
            ok(
              await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
                params: { path: { ...path(ctx), round_no: round.number!, turn_no: view.turn! } },
                body: { pass: true },
                headers: auth(ctx),
              }),
            );
          }),
        Boolean(view.on_turn && view.may_pass),
      ),
    ),
  );
  return out;
}

// ----- May I? -------------------------------------------------------------------

function mayI(ctx: Of<"may-i">): (HTMLElement | string)[] {
  const round = ctx.table.round!;
  const view = ctx.view;
  const seats = ctx.table.seats ?? [];
  const name = (s: number | null | undefined) => (s === null || s === undefined ? "nobody" : seats[s]?.name ?? `seat ${s}`);
  const offer = round.may_i;
  const out: (HTMLElement | string)[] = [
    h("p", { id: "state" }, `Contract: ${round.contract} · step ${round.step} · stock ${round.stock_size} · discard pile ${round.discard_size}`),
    h("p", { id: "discard" }, "Discard: ", round.discard_top ? h("span", { class: `card face ${red(round.discard_top) ? "red" : ""}`, "data-card": round.discard_top }, label(round.discard_top)) : "none"),
    h(
      "ol",
      { id: "melds", "aria-label": "melds" },
      (round.melds ?? []).map((m) => h("li", { "data-meld": m.id }, `${m.id}. ${m.kind} of ${name(m.owner)}: `, (m.cards ?? []).map(label).join(" "))),
    ),
  ];
  if (offer) {
    const answers = Object.entries(offer.answers ?? {}).map(([s, a]) => `${name(Number(s))} ${a === "allow" ? "allows" : "denies"}`);
    out.push(
      h(
        "p",
        { id: "may-i", class: "offer" },
        `May I? for ${label(offer.card ?? "")}: `,
        offer.asker === null || offer.asker === undefined ? "nobody has asked yet" : `${name(offer.asker)} asks`,
        answers.length ? ` · ${answers.join(", ")}` : "",
        offer.until_ms ? h("span", { class: "clock", "data-until": offer.until_ms }, "") : "",
      ),
    );
  }
  if (!view) return out;
  const may = new Set(view.may ?? []);
  const lay = view.lay_offs ?? {};
  const discardable = new Set(view.discardable ?? []);
  const marked = new Set<string>([...(may.has("discard") ? discardable : []), ...(may.has("lay_off") ? Object.keys(lay) : [])]);
  if (may.has("lay_down")) for (const c of view.hand ?? []) marked.add(c);
  const move = (body: Schemas["Move"]) =>
    ctx.act(async () => {
      ok(
        await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", {
          params: { path: { ...path(ctx), round_no: round.number!, move_no: view.move! } },
          body,
          headers: auth(ctx),
        }),
      );
    });
  out.push(hand(ctx, marked, (card, i) => toggle(ctx, card, i, 24)));
  const cards = pickedCards(ctx);
  const buttons: HTMLElement[] = [];
  if (may.has("take_discard")) buttons.push(action("Take the discard", "t", () => move({ take_discard: true })));
  if (may.has("decline")) buttons.push(action("Decline it", "n", () => move({ decline: true })));
  if (may.has("draw")) buttons.push(action("Draw", "d", () => move({ draw: true })));
  if (may.has("lay_down")) {
    const contract = view.contract;
    if (contract) buttons.push(action(`Lay down ${contract.map((m) => m.map(label).join(" ")).join(" | ")}`, "l", () => move({ lay_down: contract })));
    buttons.push(action("Picked cards make a meld", "g", () => { ctx.melds.push(cards); ctx.picked.clear(); ctx.draw(); }, cards.length > 0));
    if (ctx.melds.length) buttons.push(action(`Lay down ${ctx.melds.length} meld(s)`, "k", () => move({ lay_down: ctx.melds.splice(0) })));
  }
  if (may.has("lay_off") && cards.length === 1) {
    for (const meld of lay[cards[0]] ?? []) {
      buttons.push(action(`Lay off on meld ${meld}`, String(meld).slice(-1), () => move({ lay_off: { card: cards[0], meld } })));
    }
  }
  if (may.has("discard")) buttons.push(action(cards.length === 1 ? `Discard ${label(cards[0])}` : "Discard (pick 1)", "x", () => move({ discard: cards[0] }), cards.length === 1 && discardable.has(cards[0])));
  if (may.has("done")) buttons.push(action("Done", "e", () => move({ done: true })));
  if (offer && may.has("ask")) {
    buttons.push(
      action("May I?", "m", () =>
        ctx.act(async () => {
          ok(await api.POST("/v1/tables/{table_id}/rounds/{round_no}/may-i", { params: { path: { ...path(ctx), round_no: round.number! } }, body: { offer: offer.offer! }, headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() } }));
        }),
      ),
    );
  }
  if (offer && may.has("answer")) {
    const answer = (allow: boolean) =>
      ctx.act(async () => {
        ok(
          await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/may-i/{offer_no}/answers/{seat}", {
            params: { path: { ...path(ctx), round_no: round.number!, offer_no: offer.offer!, seat: view.seat! } },
            body: { allow },
            headers: auth(ctx),
          }),
        );
      });
    buttons.push(action("Allow", "a", () => answer(true)), action("Deny", "r", () => answer(false)));
  }
  if (ctx.melds.length) out.push(h("p", { id: "building" }, "Melds to lay down: ", ctx.melds.map((m) => m.map(label).join(" ")).join(" | ")));
  out.push(h("p", { class: "actions" }, view.on_turn ? "Your turn. " : "", buttons));
  return out;
}

// ----- the event feed -----------------------------------------------------------

/** One line of the feed for a public event (docs/api.md, "Events"). */
export function describe(event: Record<string, unknown>, table?: PublicTable): string {
  const who = (s: unknown) => (typeof s === "number" ? table?.seats?.[s]?.name ?? `seat ${s}` : "");
  const card = typeof event.card === "string" ? ` ${label(event.card)}` : "";
  const seat = typeof event.name === "string" ? `${event.name} ` : "seat" in event ? `${who(event.seat)} ` : "";
  const text: Record<string, string> = {
    "table-created": "The table was created",
    "seat-joined": `${seat}joined`,
    "seat-left": `${seat}left`,
    "round-dealt": `Round ${event.round} was dealt`,
    "pass-chosen": `${seat}chose a pass`,
    "exchange-resolved": `Exchange ${event.exchange} resolved`,
    "claim-accepted": `${seat}claimed and won`,
    "claim-rejected": `${seat}claimed, refused`,
    "card-played": `${seat}played${card}`,
    passed: `${seat}passed`,
    "discard-taken": `${seat}took${card}`,
    "discard-declined": `${seat}declined${card}`,
    "stock-drawn": `${seat}drew from the stock`,
    "laid-down": `${seat}laid down`,
    "laid-off": `${seat}laid off${card}`,
    discarded: `${seat}discarded${card}`,
    "may-i-offered": `May I?${card} is on offer`,
    "may-i-asked": `${seat}asks "May I?" for${card}`,
    "may-i-answered": `${seat}${event.allow ? "allows" : "denies"}`,
    "may-i-given": `${seat}gets${card}`,
    "may-i-lapsed": "Nobody asked",
    "went-out": `${seat}went out`,
    "round-won": `Round ${event.round} is over`,
    "round-over": `Round ${event.round} is over`,
    "round-void": `Round ${event.round} is void`,
  };
  return text[String(event.type)] ?? `${event.type}${seat ? ` (${seat.trim()})` : ""}`;
}
