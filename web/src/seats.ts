// The seats round the table: who sits where (you at the bottom, your left
// neighbour on your left), who is here, away or a bot, whose move it is and
// for how long, and each seat's cards and score.
import type { PublicTable } from "./api";
import { back } from "./cards";
import { h, icon, ICONS } from "./dom";
import { count, signed } from "./words";

type Seat = NonNullable<PublicTable["seats"]>[number];

/** How a seat is present (RULES.md 5.3, 5.4, 5.5): `open` (nobody took it),
 * `bot`, `away` (it timed out and has not moved itself since), `online`
 * (its own stream or token was seen within 15 s) or `offline`. */
export type Presence = "open" | "bot" | "away" | "online" | "offline";

export function presence(seat: Seat): Presence {
  if (seat.open || seat.name === null) return "open";
  if (seat.bot) return "bot";
  if (seat.away) return "away";
  return seat.connected ? "online" : "offline";
}

const PRESENCE_WORDS: Record<Presence, [string, string]> = {
  open: ["open seat", "Nobody has taken this seat yet"],
  bot: ["bot", "A bot plays this seat"],
  away: ["away", "Ran out of time: the referee moves for this seat until it plays again"],
  online: ["here", "Connected now"],
  offline: ["not here", "Not connected for 15 seconds or more"],
};

/** The seats in the standings' order: by rank (1 first; tied seats share a
 * place), then seat number (the view's `standings` is deprecated). */
export function byRank(seats: PublicTable["seats"] | undefined): Seat[] {
  return [...(seats ?? [])].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
}

/** A seat's score as its game keeps it: chips (live: paid into this round's
 * pot taken off), points or round wins. */
export function score(table: PublicTable, seat: Seat): string {
  const o = table.options as Record<string, unknown>;
  // Each member read where the seat has it (a game's seats are its own).
  const chips = "chips" in seat && typeof seat.chips === "number" ? seat.chips : undefined;
  const points = "points" in seat && typeof seat.points === "number" ? seat.points : 0;
  const chipWords = (n: number) => `${signed(n)} ${Math.abs(n) === 1 ? "chip" : "chips"}`;
  if (table.game === "sevens") {
    if (o.points !== "none") return count(points, "point");
    const paid = "paid" in seat && typeof seat.paid === "number" ? seat.paid : 0;
    return chipWords((chips ?? 0) - paid);
  }
  if (table.game === "may-i") return count(points, "point");
  const wins = count("wins" in seat && typeof seat.wins === "number" ? seat.wins : 0, "win");
  return chips === undefined ? wins : `${wins}, ${chipWords(chips)}`;
}

/** The seat's place round the table, as CSS percentages of the felt: `me`
 * at the bottom, then clockwise (your left neighbour, seat + 1, on your left). */
function place(seat: number, me: number, seats: number): { x: number; y: number } {
  const turn = (seat - me + seats) % seats;
  const angle = Math.PI / 2 + (turn * 2 * Math.PI) / seats;
  return { x: Math.round(50 + 40 * Math.cos(angle)), y: Math.round(50 + 44 * Math.sin(angle)) };
}

const HUES = [210, 12, 140, 280, 40, 330, 180, 95, 250, 0];

/** `ownUntil`: the page's own seat's deadline as its "waiting for" line shows
 * it (its seat view's, which may be newer than the table's): one clock, one
 * number. */
export function seatRing(table: PublicTable, me: number | undefined, ownUntil?: number): HTMLElement {
  const seats = table.seats ?? [];
  const waiting = new Set(table.awaiting?.seats ?? []);
  const playing = Boolean(table.round && table.round.status !== "over");
  const bottom = me ?? 0;
  return h(
    "ol",
    { class: "ring", id: "seats", "aria-label": "the seats, clockwise" },
    seats.map((seat, i) => {
      const state = presence(seat);
      const [word, why] = PRESENCE_WORDS[state];
      const { x, y } = place(i, bottom, seats.length);
      const turn = (i - bottom + seats.length) % seats.length;
      const name = seat.name ?? "Open seat";
      const until = !waiting.has(i) ? undefined : i === me && ownUntil ? ownUntil : (seat.until_ms ?? table.awaiting?.until_ms);
      const cards = playing && "cards" in seat && typeof seat.cards === "number" ? seat.cards : undefined;
      const chosen = "chosen" in seat && seat.chosen === true && table.round?.status === "passing";
      const laid = "laid_down" in seat && seat.laid_down === true;
      return h(
        "li",
        {
          class: ["seat", state, waiting.has(i) ? "waiting" : "", i === me ? "me" : "", i === table.round?.dealer ? "dealer" : ""].join(" "),
          "data-seat": i,
          "data-presence": state,
          style: `--x: ${x}%; --y: ${y}%; --order: ${turn === 0 ? seats.length : turn}; --hue: ${HUES[i % HUES.length]}`,
        },
        h(
          "span",
          { class: "avatar", "aria-hidden": "true" },
          state === "bot" ? icon(ICONS.bot) : state === "open" ? "+" : initials(name),
        ),
        h("span", { class: "who" }, h("span", { class: "name", title: name }, name), i === me ? h("span", { class: "you" }, "(you)") : ""),
        h(
          "span",
          { class: "facts" },
          h("span", { class: `presence ${state}`, title: why }, word),
          i === table.round?.dealer ? h("span", { class: "dealer-chip", title: "the dealer this round" }, "D") : "",
          cards === undefined ? "" : h("span", { class: "count", title: count(cards, "card") }, back("mini"), String(cards)),
          seat.name === null ? "" : h("span", { class: "score" }, score(table, seat)),
          chosen ? h("span", { class: "chosen", title: "has chosen" }, back("mini"), "ready") : "",
          laid ? h("span", { class: "laid", title: "has laid down its contract" }, "laid down") : "",
        ),
        waiting.has(i) ? h("span", { class: "turn-mark" }, until ? clock(until) : "to move") : "",
      );
    }),
  );
}

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[1][0] : name.slice(0, 2);
  return letters.toUpperCase();
}

/** A countdown to `until` (ms since the epoch, the server's clock): an
 * inline SVG clock and the seconds left, kept ticking by {@link tick}. */
export function clock(until: number): HTMLElement {
  return h("span", { class: "clock", "data-until": until, title: "time left" }, icon(ICONS.clock), h("span", { class: "left" }, secondsLeft(until)));
}

function secondsLeft(until: number): string {
  return `${Math.max(0, Math.ceil((until - Date.now()) / 1000))} s`;
}

/** Brings every countdown on the page up to date (called a few times a second). */
export function tick(): void {
  for (const element of document.querySelectorAll<HTMLElement>(".clock[data-until]")) {
    const left = element.querySelector(".left");
    if (left) left.textContent = secondsLeft(Number(element.dataset.until));
  }
}
