// Each game's part of the table: what lies in the middle (My Ship Sails'
// passing, Sevens' rows by suit and rank, May I?'s stock, discard pile and
// melds), the seat's hand, and what it may do now.
import { api, bearer, ok, type PublicTable, type Schemas, type SeatView } from "./api";
import { back, face, label, red, sorted, spoken, SUIT_NAME, SUIT_SIGN } from "./cards";
import { h, icon, ICONS } from "./dom";
import { clock } from "./seats";
import { contract, count, direction, list, nameOf } from "./words";

/** Run a call, then read the seat and the table again. */
export type Act = (what: () => Promise<unknown>) => Promise<void>;

export interface Context {
  id: string;
  table: PublicTable;
  view?: SeatView;
  token?: string;
  /** Cards picked in the hand, as `card#index` of the drawn hand. */
  picked: Set<string>;
  /** May I?: the melds being built for a lay-down. */
  melds: string[][];
  /** Cards that just came into the hand (drawn, taken, received), marked. */
  fresh: string[];
  act: Act;
  draw: () => void;
}

export interface Part {
  /** What lies in the middle of the table. */
  center: (HTMLElement | string)[];
  /** The seat's hand and its actions (none for a spectator). */
  hand?: HTMLElement;
  actions?: (HTMLElement | string)[];
  /** One line that says what the seat may do now. */
  prompt?: string;
}

/** A hand, sorted by suit; `marked` cards are highlighted (playable,
 * passable), `fresh` ones tagged as just arrived. */
function hand(ctx: Context, marked: Set<string> | "all", onPick: (card: string, index: number) => void): HTMLElement {
  const cards = sorted(ctx.view?.hand ?? []);
  const fresh = [...ctx.fresh];
  return h(
    "div",
    { id: "hand", role: "group", "aria-label": `your hand, ${count(cards.length, "card")}`, style: `--cards: ${cards.length}` },
    cards.map((card, i) => {
      const playable = marked === "all" || marked.has(card);
      const picked = ctx.picked.has(`${card}#${i}`);
      const at = fresh.indexOf(card);
      const isFresh = at >= 0;
      if (isFresh) fresh.splice(at, 1);
      return h(
        "button",
        {
          type: "button",
          class: ["card", "face", "big", red(card) ? "red" : "black", card === "JK" ? "joker" : "", playable ? "playable" : "dim", picked ? "picked" : "", isFresh ? "fresh" : ""].join(" "),
          "data-card": card,
          "data-key": `card-${card}-${i}`,
          "aria-pressed": picked ? "true" : "false",
          "aria-label": spoken(card) + (isFresh ? ", just arrived" : "") + (playable ? "" : ", not playable now"),
          onclick: () => onPick(card, i),
        },
        h("span", { class: "corner", "aria-hidden": "true" }, card === "JK" ? "J" : label(card).slice(0, -1), h("br"), card === "JK" ? "★" : SUIT_SIGN[card.slice(-1)]),
        h("span", { class: "pip", "aria-hidden": "true" }, card === "JK" ? "★" : SUIT_SIGN[card.slice(-1)]),
        isFresh ? h("span", { class: "tag" }, "new") : "",
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

/** A button for one action: `id` names it for tests and scripts, `text` for people. */
function action(id: string, text: string, shortcut: string, run: () => void, enabled = true, main = false): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: main ? "action main" : "action",
      "data-action": id,
      "data-key": `action-${id}`,
      "data-shortcut": shortcut,
      "aria-keyshortcuts": shortcut.toUpperCase(),
      disabled: !enabled,
      onclick: run,
    },
    text,
    h("kbd", {}, shortcut.toUpperCase()),
  );
}

const auth = (ctx: Context) => bearer(ctx.token ?? "");
const path = (ctx: Context) => ({ table_id: ctx.id });

export function gamePart(ctx: Context): Part {
  if (ctx.table.game === "sevens") return sevens(ctx);
  if (ctx.table.game === "may-i") return mayI(ctx);
  return ship(ctx);
}

// ----- My Ship Sails ----------------------------------------------------------

function ship(ctx: Context): Part {
  // Narrowed by `game`: each game's views are its own (the spec's unions by game).
  const table = ctx.table;
  if (table.game !== "my-ship-sails") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "my-ship-sails" ? ctx.view : undefined;
  const options = table.options as Record<string, unknown>;
  const countToPass = Number(options.pass_count ?? 1);
  if (!round) return { center: [] };
  const way = direction(table);
  const chosen = (table.seats ?? []).filter((s) => s.chosen).length;
  const choosers = round.choosers?.length ?? table.seats?.length ?? 0;
  const center: (HTMLElement | string)[] = [
    h(
      "div",
      { class: "passing", id: "state" },
      h("span", { class: `way ${way ?? "swap"}` }, icon(way === "right" ? ICONS.right : way === "left" ? ICONS.left : ICONS.swap)),
      h(
        "span",
        {},
        round.status === "over"
          ? `The round is over after ${count(round.exchanges_resolved ?? 0, "exchange")}.`
          : `Exchange ${round.exchange ?? 1}: ${way ? `passing ${way}` : "passing round the table"} · ${chosen} of ${choosers} ready`,
      ),
    ),
  ];
  if (round.window_closes_at_ms) {
    center.push(h("p", { class: "offer" }, "A claim is in: others may claim too until ", clock(round.window_closes_at_ms)));
  }
  for (const claim of round.claims ?? []) {
    center.push(h("p", { class: "shown" }, `${nameOf(table, claim.seat)} showed `, (claim.hand ?? []).map((c) => face(c, "small"))));
  }
  if (!view) return { center };
  const choosing = Boolean(view.to_choose) && round.status === "passing";
  const mine: (HTMLElement | string)[] = [];
  if (view.pending?.length) {
    mine.push(h("span", { id: "pending", class: "pass-slot" }, "Your pass: ", view.pending.map((c) => face(c, "small")), " (waiting for the others)"));
  } else if (view.passed?.length && round.status !== "over") {
    mine.push(h("span", { id: "passed", class: "pass-slot" }, "You passed ", view.passed.map((c) => face(c, "small"))));
  }
  if (view.received?.length) {
    mine.push(h("span", { id: "received", class: "pass-slot" }, "You received ", view.received.map((c) => face(c, "small"))));
  }
  if (mine.length) center.push(h("div", { class: "mine-pass" }, mine));
  // How far the seat is from sailing: its longest suit against win_count.
  const bySuit = new Map<string, number>();
  for (const card of view.hand) bySuit.set(card.slice(-1), (bySuit.get(card.slice(-1)) ?? 0) + 1);
  const [best, most] = [...bySuit.entries()].sort((a, b) => b[1] - a[1] || "SHCD".indexOf(a[0]) - "SHCD".indexOf(b[0]))[0] ?? ["S", 0];
  const want = Number(options.win_count ?? 7);
  center.push(
    h(
      "p",
      { class: "progress", id: "progress" },
      `Your longest suit: ${SUIT_NAME[best]} `,
      h("span", { class: `suit-sign ${"HD".includes(best) ? "red" : ""}`, "aria-hidden": "true" }, SUIT_SIGN[best]),
      `, ${most} of ${want}`,
      most >= want ? ": call it!" : "",
    ),
  );
  const cards = pickedCards(ctx);
  const actions = [
    action(
      "Pass",
      cards.length === countToPass ? `Pass ${cards.map(label).join(" ")}` : `Pass (pick ${countToPass === 1 ? "a card" : count(countToPass, "card")})`,
      "p",
      () =>
        ctx.act(async () => {
          ok(
            await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", {
              params: { path: { ...path(ctx), round_no: round.number, exchange_no: view.exchange ?? 0, seat: view.seat } },
              body: { cards },
              headers: auth(ctx),
            }),
          );
        }),
      choosing && cards.length === countToPass,
      choosing,
    ),
  ];
  if (options.declaration !== "automatic") {
    actions.push(
      action(
        "Claim",
        String(options.call ?? "My ship sails!"),
        "c",
        () =>
          ctx.act(async () => {
            ok(
              await api.POST("/v1/tables/{table_id}/rounds/{round_no}/claims", {
                params: { path: { ...path(ctx), round_no: round.number } },
                headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() },
              }),
            );
          }),
        round.status !== "over",
      ),
    );
  }
  const win = Number(options.win_count ?? 7);
  return {
    center,
    hand: hand(ctx, choosing ? "all" : new Set(), (card, i) => choosing && toggle(ctx, card, i, countToPass)),
    actions,
    prompt: choosing
      ? `Pick ${countToPass === 1 ? "a card" : count(countToPass, "card")} to pass ${way ?? ""}, then Pass. Hold ${win} of one suit? Call it.`.replace("  ", " ")
      : view.pending?.length
        ? "Waiting for the others to choose."
        : "",
  };
}

// ----- Sevens -----------------------------------------------------------------

const ROW_RANKS = "23456789TJQKA";

/** The ranks a row holds, from `low` to `high` (cyclic with turn the corner). */
function rowRanks(low: string, high: string): Set<string> {
  const a = ROW_RANKS.indexOf(low.slice(0, -1));
  const b = ROW_RANKS.indexOf(high.slice(0, -1));
  const held = new Set<string>();
  for (let i = a; ; i = (i + 1) % 13) {
    held.add(ROW_RANKS[i]);
    if (i === b || held.size === 13) break;
  }
  return held;
}

function sevens(ctx: Context): Part {
  // Narrowed by `game`: each game's views are its own (the spec's unions by game).
  const table = ctx.table;
  if (table.game !== "sevens") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "sevens" ? ctx.view : undefined;
  const options = table.options as Record<string, unknown>;
  if (!round) return { center: [] };
  const decks = Number(options.decks ?? 1);
  const rows = round.layout ?? [];
  const drawn: HTMLElement[] = [];
  for (const suit of "SHDC") {
    const started = rows.filter((r) => r.suit === suit);
    for (let copy = 0; copy < decks; copy++) {
      const row = started[copy];
      const ranks = row ? rowRanks(row.low, row.high) : new Set<string>();
      drawn.push(
        h(
          "div",
          { class: `row ${red(`7${suit}`) ? "red" : "black"}`, "data-suit": suit, role: "group", "aria-label": row ? `${SUIT_NAME[suit]}: ${label(row.low)} to ${label(row.high)}` : `${SUIT_NAME[suit]}: not started` },
          h("span", { class: "suit", "aria-hidden": "true" }, SUIT_SIGN[suit]),
          h(
            "span",
            { class: "slots" },
            [...ROW_RANKS].map((rank) =>
              ranks.has(rank)
                ? face(`${rank}${suit}`, "mini", { class: rank === "7" ? "seven" : "" })
                : h("span", { class: `slot ${rank === "7" ? "seven" : ""}`, "aria-hidden": "true" }, rank === "T" ? "10" : rank),
            ),
          ),
        ),
      );
    }
  }
  const pays = options.points === "none";
  const center: (HTMLElement | string)[] = [
    h("div", { id: "layout", class: "rows", "aria-label": "the layout" }, drawn),
    h(
      "p",
      { class: "pot", id: "state" },
      round.status === "over" ? "The round is over." : pays ? h("span", {}, h("span", { class: "chip-stack", "aria-hidden": "true" }), `Pot: ${count(round.pot ?? 0, "chip")}`) : `Turn ${round.turn ?? "-"}`,
    ),
  ];
  if (!view) return { center };
  const playable = new Set(view.playable ?? []);
  const turnNo = view.turn ?? 0;
  const play = (card: string) =>
    ctx.act(async () => {
      ok(
        await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
          params: { path: { ...path(ctx), round_no: round.number, turn_no: turnNo } },
          body: { play: card, ...(view.must_announce ? { last_card: true } : {}) },
          headers: auth(ctx),
        }),
      );
    });
  const onTurn = Boolean(view.on_turn);
  const chips = Number(options.pass_chips ?? 1);
  return {
    center,
    hand: hand(ctx, onTurn ? playable : new Set(), (card) => {
      if (onTurn && playable.has(card)) void play(card);
    }),
    actions: [
      action(
        "Pass",
        pays && chips ? `Pass (pay ${count(chips, "chip")})` : "Pass",
        "s",
        () =>
          ctx.act(async () => {
            ok(
              await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
                params: { path: { ...path(ctx), round_no: round.number, turn_no: turnNo } },
                body: { pass: true },
                headers: auth(ctx),
              }),
            );
          }),
        Boolean(onTurn && view.may_pass),
        Boolean(onTurn && view.may_pass && playable.size === 0),
      ),
    ],
    prompt: onTurn
      ? playable.size
        ? `Play a highlighted card${view.must_announce ? " (it announces your last card)" : ""}.`
        : "No card fits: pass."
      : "",
  };
}

// ----- May I? -------------------------------------------------------------------

function mayI(ctx: Context): Part {
  // Narrowed by `game`: each game's views are its own (the spec's unions by game).
  const table = ctx.table;
  if (table.game !== "may-i") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "may-i" ? ctx.view : undefined;
  if (!round) return { center: [] };
  const offer = round.may_i;
  const melds = round.melds ?? [];
  const owners = [...new Set(melds.map((m) => m.owner))];
  const center: (HTMLElement | string)[] = [
    h(
      "div",
      { class: "piles" },
      h("div", { class: "pile stock", title: "the stock" }, back("small", String(round.stock_size ?? 0)), h("span", {}, "stock")),
      h(
        "div",
        { class: "pile discard", id: "discard", title: "the discard pile" },
        round.discard_top ? face(round.discard_top, "small") : h("span", { class: "card empty small" }),
        h("span", {}, `discards (${round.discard_size ?? 0})`),
      ),
      h("p", { class: "contract", id: "state" }, `Contract: ${contract(round.contract_sets, round.contract_runs)}`),
    ),
  ];
  if (offer) {
    const answers = Object.entries(offer.answers ?? {}).map(([s, a]) => `${nameOf(table, Number(s))} ${a === "allow" ? "allows" : "says no"}`);
    center.push(
      h(
        "p",
        { id: "may-i", class: "offer" },
        h("strong", {}, "May I? "),
        face(offer.card, "small"),
        " ",
        offer.asker === null ? "Nobody has asked yet." : `${nameOf(table, offer.asker)} asks for it.`,
        answers.length ? ` ${list(answers)}.` : "",
        " ",
        clock(offer.until_ms),
      ),
    );
  }
  center.push(
    h(
      "div",
      { id: "melds", "aria-label": "melds" },
      owners.length === 0 ? h("p", { class: "hint" }, "No melds on the table yet.") : "",
      owners.map((owner) =>
        h(
          "div",
          { class: "meld-group" },
          h("span", { class: "owner" }, nameOf(table, owner)),
          melds
            .filter((m) => m.owner === owner)
            .map((m) => h("span", { class: `meld ${m.kind}`, "data-meld": m.id, title: `meld ${m.id}: a ${m.kind}` }, h("span", { class: "meld-no" }, String(m.id)), m.cards.map((c) => face(c, "mini")))),
        ),
      ),
    ),
  );
  if (!view) return { center };
  const may = new Set(view.may ?? []);
  const lay = view.lay_offs ?? {};
  const discardable = new Set(view.discardable ?? []);
  // Highlighted: what may be discarded or laid off now (any card may go into a meld being built).
  const marked = new Set<string>([...(may.has("discard") ? discardable : []), ...(may.has("lay_off") ? Object.keys(lay) : [])]);
  const moveNo = view.move ?? 0;
  const move = (body: Schemas["Move"]) =>
    ctx.act(async () => {
      ok(
        await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", {
          params: { path: { ...path(ctx), round_no: round.number, move_no: moveNo } },
          body,
          headers: auth(ctx),
        }),
      );
    });
  const cards = pickedCards(ctx);
  const buttons: HTMLElement[] = [];
  if (may.has("take_discard")) buttons.push(action("Take the discard", `Take ${round.discard_top ? label(round.discard_top) : "the discard"}`, "t", () => move({ take_discard: true }), true, true));
  if (may.has("decline")) buttons.push(action("Decline it", "Pass on it", "n", () => move({ decline: true })));
  if (may.has("draw")) buttons.push(action("Draw", "Draw from the stock", "d", () => move({ draw: true }), true, true));
  if (may.has("lay_down")) {
    if (view.contract) {
      buttons.push(action("Lay down", `Lay down ${view.contract.map((m) => m.map(label).join(" ")).join(" | ")}`, "l", () => move({ lay_down: view.contract ?? [] }), true, true));
    }
    buttons.push(
      action(
        "Picked cards make a meld",
        "Picked cards make a meld",
        "g",
        () => {
          ctx.melds.push(cards);
          ctx.picked.clear();
          ctx.draw();
        },
        cards.length > 0,
      ),
    );
    if (ctx.melds.length) buttons.push(action("Lay down melds", `Lay down ${count(ctx.melds.length, "meld")}`, "k", () => move({ lay_down: ctx.melds.splice(0) })));
  }
  if (may.has("lay_off") && cards.length === 1) {
    for (const meld of lay[cards[0]] ?? []) {
      buttons.push(action(`Lay off on meld ${meld}`, `Lay ${label(cards[0])} off on meld ${meld}`, String(meld).slice(-1), () => move({ lay_off: { card: cards[0], meld } })));
    }
  }
  if (may.has("discard")) {
    buttons.push(action("Discard", cards.length === 1 ? `Discard ${label(cards[0])}` : "Discard (pick a card)", "x", () => move({ discard: cards[0] }), cards.length === 1 && discardable.has(cards[0]), cards.length === 1));
  }
  if (may.has("done")) buttons.push(action("Done", "Done laying off", "e", () => move({ done: true }), true, true));
  if (offer && may.has("ask")) {
    buttons.push(
      action("May I?", `May I? (${label(offer.card)})`, "m", () =>
        ctx.act(async () => {
          ok(
            await api.POST("/v1/tables/{table_id}/rounds/{round_no}/may-i", {
              params: { path: { ...path(ctx), round_no: round.number } },
              body: { offer: offer.offer },
              headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() },
            }),
          );
        }),
      ),
    );
  }
  if (offer && may.has("answer")) {
    const answer = (allow: boolean) =>
      ctx.act(async () => {
        ok(
          await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/may-i/{offer_no}/answers/{seat}", {
            params: { path: { ...path(ctx), round_no: round.number, offer_no: offer.offer, seat: view.seat } },
            body: { allow },
            headers: auth(ctx),
          }),
        );
      });
    buttons.push(action("Allow", "Allow", "a", () => answer(true), true, true), action("Deny", "Say no", "r", () => answer(false)));
  }
  const building = ctx.melds.length ? h("p", { id: "building" }, "Melds to lay down: ", ctx.melds.map((m) => m.map(label).join(" ")).join(" | ")) : "";
  return {
    center,
    hand: hand(ctx, marked, (card, i) => toggle(ctx, card, i, 24)),
    actions: [building, ...buttons],
    prompt: promptOf(may, view, offer !== null && offer !== undefined),
  };
}

function promptOf(may: Set<string>, view: SeatView, offered: boolean): string {
  if (may.has("answer")) return "Someone asks “May I?” for the discard: allow it, or say no and take it yourself.";
  if (may.has("take_discard")) return "Take the discard, or pass on it.";
  if (may.has("draw")) return "Draw from the stock.";
  if (may.has("done")) return "Lay off what you can, then say you are done.";
  if (may.has("discard")) return may.has("lay_down") ? "Lay down your contract if you can; then discard a card." : "Lay off or discard: pick a card.";
  if (offered && may.has("ask")) return "Want the discard? Ask “May I?” (you take a card from the stock with it).";
  return "";
}

