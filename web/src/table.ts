// A table at /play: the felt with the seats round it, the game's middle, the
// seat's hand and actions, the host's panel, the result, the scores and the
// events. It follows the table live with the client package's connectSeat
// (a seat) or connectTable (anyone else), which keeps the newest views.
import { api, bearer, connectSeat, connectTable, held, ok, Refused, type Live, type PublicTable, type SeatView } from "./api";
import { face, label } from "./cards";
import { h, render } from "./dom";
import { gamePart, type Act, type Part } from "./games";
import { byRank, clock, score, seatRing } from "./seats";
import { count, describe, goal, list, nameOf, signed, title, waitingFor } from "./words";

interface Shown {
  id: string;
  live?: Live;
  table?: PublicTable;
  view?: SeatView;
  me?: number;
  token?: string;
  feed: string[];
  picked: Set<string>;
  melds: string[][];
  fresh: string[];
  connection: string;
  drawing?: number;
}

let shown: Shown | undefined;
let say: (text: string, error?: boolean) => void = () => undefined;

export function sayWith(speaker: (text: string, error?: boolean) => void): void {
  say = speaker;
}

export function leaveTable(): void {
  shown?.live?.close();
  shown = undefined;
}

export async function tablePage(main: HTMLElement, id: string): Promise<void> {
  const state: Shown = { id, feed: [], picked: new Set(), melds: [], fresh: [], connection: "connecting" };
  shown = state;
  const mine = held(id);
  const base = location.origin;
  // The last twenty events as the feed's start; then everything live.
  const options = { backlog: 20 };
  let live: Live;
  if (mine.token !== undefined && mine.seat !== undefined) {
    try {
      live = await connectSeat(base, id, { seat: mine.seat, token: mine.token }, options);
      state.me = mine.seat;
      state.token = mine.token;
    } catch (error) {
      if (!(error instanceof Refused) || error.status !== 401) throw error;
      say("This browser's key to its seat no longer works (the host may have given the seat a new one): you are watching.", true);
      live = await connectTable(base, id, options);
    }
  } else {
    live = await connectTable(base, id, options);
  }
  if (shown !== state) {
    live.close();
    return;
  }
  state.live = live;
  state.table = live.table;
  if (live.view) takeView(state, live.view);
  live.on("view", (view) => {
    takeView(state, view);
    drawSoon(main, state);
  });
  live.on("table", (table) => {
    state.table = table;
    drawSoon(main, state);
  });
  live.on("event", (event) => {
    addFeed(state, describe(event, state.table));
    drawSoon(main, state);
  });
  live.on("gap", () => {
    addFeed(state, "Some moves went by while this page was away.");
    drawSoon(main, state);
  });
  live.on("status", ({ status, ended }) => {
    state.connection = status;
    if (ended && ended.reason !== "closed") {
      say(
        ended.reason === "table-deleted"
          ? "The table was closed."
          : ended.reason === "seat-closed"
            ? "Your seat was given a new key (or you left it): this page no longer plays it."
            : `The referee refused this seat: ${ended.problem?.detail ?? ended.problem?.code ?? ""}`,
        true,
      );
    }
    drawSoon(main, state);
  });
  draw(main, state);
}

function addFeed(state: Shown, line: string): void {
  state.feed.unshift(line);
  state.feed.length = Math.min(state.feed.length, 60);
}

/** Takes `view` as the seat's view (the client hands only newer ones). A pick
 * is a card's place in the hand the page drew, so the picks end when the
 * seat's move, hand or pass changes; a refused move keeps them. Cards that
 * came into the hand (drawn, taken, given, received) are marked. */
function takeView(state: Shown, view: SeatView): void {
  const before = state.view;
  // What the seat may do, without what changes with every commit or by the
  // clock (presence, the last event, deadlines): picks end when it changes.
  const scope = (v?: SeatView) =>
    JSON.stringify(v, (key, value) => (["connected", "last_event", "until_ms", "away"].includes(key) ? undefined : value));
  if (scope(view) !== scope(before)) state.picked.clear();
  if (view.game === "my-ship-sails") {
    state.fresh = view.round_status === "over" ? [] : [...(view.received ?? [])];
  } else if (view.game === "may-i") {
    const wasOnTurn = before !== undefined && "on_turn" in before && before.on_turn === true;
    if (!before || before.round !== view.round) {
      state.fresh = [];
    } else {
      const added = without(view.hand, before.hand);
      if (added.length) state.fresh = added;
      else if (wasOnTurn && !view.on_turn) state.fresh = [];
      else state.fresh = state.fresh.filter((c) => view.hand.includes(c));
    }
  }
  state.view = view;
}

/** The cards of `hand` not in `less`, each as often as it is more there (hands are multisets). */
function without(hand: readonly string[], less: readonly string[]): string[] {
  const left = [...less];
  return hand.filter((card) => {
    const at = left.indexOf(card);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

function drawSoon(main: HTMLElement, state: Shown): void {
  if (state.drawing !== undefined) return;
  state.drawing = requestAnimationFrame(() => {
    state.drawing = undefined;
    if (shown === state) draw(main, state);
  });
}

function draw(main: HTMLElement, state: Shown): void {
  const table = state.table;
  if (!table) return;
  const act: Act = async (what) => {
    try {
      await what();
      say("");
    } catch (error) {
      say(error instanceof Refused ? refusal(error) : String(error), true);
    }
    await state.live?.refresh().catch(() => undefined);
  };
  const part: Part = gamePart({
    id: state.id,
    table,
    view: state.view,
    token: state.token,
    picked: state.picked,
    melds: state.melds,
    fresh: state.fresh,
    act,
    draw: () => draw(main, state),
  });
  const round = table.round;
  const rounds = matchLength(table);
  const ownUntil = ownDeadline(table, state.view, state.me);
  const playing = round && round.status !== "over";
  render(
    main,
    h(
      "div",
      { class: "table-page" },
      h(
      "section",
      {
        class: `table game-${table.game}`,
        id: "table",
        "aria-label": "the table",
        "data-last-event": table.last_event,
        "data-view-event": state.view?.last_event ?? "",
      },
      h(
        "header",
        { class: "table-head" },
        h("h2", {}, title(table.game, table.variant), round ? h("small", {}, ` · round ${round.number}${rounds ? ` of ${rounds}` : ""}`) : ""),
        h("span", { class: `connection ${state.connection}`, title: "the live connection to the table" }, state.connection === "open" ? "live" : state.connection),
        h("p", { class: "goal", id: "goal" }, goal(table), " ", h("a", { href: `/docs/rules/${table.game}`, target: "_blank", rel: "noopener" }, "Rules")),
      ),
      h("p", { id: "awaiting", class: "waiting-line" }, waitingFor(table, state.me), ownUntil ? [" ", clock(ownUntil)] : ""),
      h(
        "div",
        { class: `felt seats-${table.seats?.length ?? 4}` },
        seatRing(table, state.me, ownUntil),
        h("div", { class: "center", id: "center" }, playing || round ? part.center : "", dealHere(state, act)),
      ),
      state.view && playing
        ? h(
            "div",
            { class: "mine", "aria-label": "your hand and moves" },
            part.prompt ? h("p", { class: "prompt", id: "prompt" }, part.prompt) : "",
            part.hand ?? "",
            h("div", { class: "actions" }, part.actions ?? []),
          )
        : "",
    ),
    h(
      "aside",
      { class: "side", "aria-label": "about the table" },
      hostPanel(state),
      resultPanel(table),
      h(
        "section",
        { class: "panel scores" },
        h("h3", {}, table.match?.status && table.match.status !== "in-progress" ? "Final scores" : "Scores"),
        h(
          "ol",
          { id: "standings" },
          // Each seat numbered by its rank: tied seats share a place (1, 1, 3).
          byRank(table.seats).map((s) => h("li", { value: s.rank, class: (table.match?.winners ?? []).includes(s.seat) ? "winner" : "" }, h("span", { class: "name" }, s.name ?? "open"), ": ", score(table, s))),
        ),
      ),
      h(
        "section",
        { class: "panel events" },
        h("h3", {}, "What happened"),
        h("ol", { id: "feed", reversed: true, "aria-live": "polite" }, state.feed.slice(0, 30).map((line) => h("li", {}, line))),
      ),
    ),
    ),
  );
}

function refusal(error: Refused): string {
  return error.problem.detail ?? error.problem.title ?? error.message;
}

/** The match's length in rounds, when it has one (`deals`). */
function matchLength(table: PublicTable): number | undefined {
  const match = (table.options as Record<string, unknown>).match;
  if (match && typeof match === "object" && "deals" in match && typeof match.deals === "number") return match.deals;
  return undefined;
}

/** The seat's own deadline: its view's `until_ms` when the service gives it
 * (RULES.md 5.3), else the public one of its seat while the table waits on it. */
function ownDeadline(table: PublicTable, view: SeatView | undefined, me: number | undefined): number | undefined {
  if (view && "until_ms" in view && typeof view.until_ms === "number") return view.until_ms;
  if (me === undefined || !(table.awaiting?.seats ?? []).includes(me)) return undefined;
  return table.seats?.[me]?.until_ms ?? table.awaiting?.until_ms ?? undefined;
}

/** The host's Deal button, on the felt, when the table can deal. */
function dealHere(state: Shown, act: Act): HTMLElement | string {
  const table = state.table as PublicTable;
  const host = held(state.id).host;
  const open = table.open_seats ?? [];
  const ready = open.length === 0 && table.match?.status === "in-progress" && (!table.round || table.round.status === "over");
  if (!ready) {
    if (!table.round && open.length) return h("p", { class: "hint" }, `${count(open.length, "seat")} still open: send the join links.`);
    return "";
  }
  if (!host) return table.round ? "" : h("p", { class: "hint" }, "Waiting for the host to deal.");
  return h(
    "button",
    {
      id: "deal",
      class: "action main deal",
      "data-key": "deal",
      onclick: () =>
        act(async () => {
          ok(
            await api.POST("/v1/tables/{table_id}/rounds", {
              params: { path: { table_id: state.id } },
              headers: { ...bearer(host), "Idempotency-Key": crypto.randomUUID() },
            }),
          );
        }),
    },
    table.round ? `Deal round ${table.round.number + 1}` : "Deal",
  );
}

function hostPanel(state: Shown): HTMLElement | string {
  const mine = held(state.id);
  const table = state.table as PublicTable;
  const links = (mine.codes ?? []).filter((c) => c.seat === null || (table.open_seats ?? []).includes(c.seat as number));
  if (!links.length) return "";
  return h(
    "section",
    { class: "panel host", "aria-label": "join links" },
    h("h3", {}, "Invite players"),
    h("p", {}, links.length === 1 ? "Send this link to a friend: it takes the open seat." : "Send each friend one link: each takes one seat."),
    h(
      "ul",
      { id: "links" },
      links.map((c) => {
        const url = `${location.origin}/play#/join/${state.id}/${c.code}`;
        return h(
          "li",
          {},
          c.seat === null ? "Any open seat" : `Seat ${c.seat + 1}`,
          h("input", { readonly: true, value: url, class: "link", "aria-label": `join link for seat ${c.seat}`, "data-seat": c.seat }),
          h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(url), "data-key": `copy-${c.seat}` }, "Copy"),
        );
      }),
    ),
  );
}

function resultPanel(table: PublicTable): HTMLElement | string {
  const result = table.last_result;
  if (!result) return "";
  const seats = table.seats ?? [];
  const name = (s: number) => nameOf(table, s);
  // Narrowed by member: each game's result has its own (the spec's union by game).
  const winners = "winners" in result ? result.winners : "winner" in result && typeof result.winner === "number" ? [result.winner] : [];
  const out = "out" in result ? result.out : null;
  const lines: (HTMLElement | string)[] = [
    h("h3", {}, `Round ${result.round}`),
    h(
      "p",
      { id: "result-winners", class: "verdict" },
      winners.length ? `Won by ${winners.map(name).join(", ")}` : typeof out === "number" ? `${name(out)} went out` : "No winner",
      "abandoned" in result && result.abandoned ? " (abandoned)" : "",
    ),
  ];
  const columns: [string, string, (v: number) => string][] = [
    ["chips", "chips", signed],
    ["points", "points", signed],
    ["cards_left", "cards left", String],
    ["penalties", "penalty", String],
  ];
  const shown = columns.filter(([key]) => {
    const values = (result as Record<string, unknown>)[key];
    return Array.isArray(values) && values.length === seats.length && (key !== "points" || table.game !== "my-ship-sails");
  });
  if (shown.length) {
    lines.push(
      h(
        "table",
        { class: "result" },
        h("tr", {}, h("th", {}, ""), shown.map(([, words]) => h("th", {}, words))),
        seats.map((s, i) =>
          h(
            "tr",
            {},
            h("td", {}, s.name ?? ""),
            shown.map(([key, , fmt]) => h("td", {}, fmt(Number(((result as Record<string, unknown>)[key] as number[])[i])))),
          ),
        ),
      ),
    );
  }
  for (const hand of ("hands" in result ? result.hands : null) ?? []) {
    lines.push(h("p", { class: "shown" }, `${name(hand.seat)} showed `, hand.cards.map((c) => face(c, "mini"))));
  }
  const aside = "set_aside" in result ? result.set_aside : null;
  if (aside?.length) lines.push(h("p", { class: "shown" }, "Set aside: ", aside.map(label).join(" ")));
  if ("pot" in result && result.pot > 0 && typeof result.winner === "number") {
    lines.push(h("p", {}, `${name(result.winner)} took the pot: ${count(result.pot, "chip")}.`));
  }
  const winnersOfMatch = table.match?.winners ?? [];
  if (table.match?.status && table.match.status !== "in-progress" && winnersOfMatch.length) {
    lines.push(h("p", { class: "verdict match" }, `${list(winnersOfMatch.map(name))} won the match.`));
  }
  return h("section", { class: "panel result", id: "result", "aria-label": "the last round" }, lines);
}
