// Cards as the API writes them: rank then suit ("TH", "7D"), "JK" a joker;
// and as the page draws them. The suit signs (♠ ♥ ♦ ♣, U+2660–2667) are in
// every common font (Debian's DejaVu included); nothing else on a card is
// not ASCII.
import { h } from "./dom";

const SUITS = "SHCD"; // alternating colours when sorted
export const RANKS = "AKQJT98765432";
export const SUIT_SIGN: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME: Record<string, string> = {
  S: "spades",
  H: "hearts",
  D: "diamonds",
  C: "clubs",
};

export const suitOf = (card: string) => card.slice(-1);
export const rankOf = (card: string) => card.slice(0, -1);

function order(card: string): number {
  if (card === "JK") return 999;
  return SUITS.indexOf(suitOf(card)) * 20 + RANKS.indexOf(rankOf(card));
}

/** The hand by suit (spades, hearts, clubs, diamonds), high to low; jokers last. */
export const sorted = (hand: readonly string[]) => [...hand].sort((a, b) => order(a) - order(b));

/** "10" for "T", else the rank as written. */
export const rankText = (card: string) => (rankOf(card) === "T" ? "10" : rankOf(card));

/** "10♥", as a person reads it; "Joker". */
export function label(card: string): string {
  if (card === "JK") return "Joker";
  return rankText(card) + (SUIT_SIGN[suitOf(card)] ?? suitOf(card));
}

/** "ten of hearts", for screen readers. */
export function spoken(card: string): string {
  if (card === "JK") return "joker";
  const names: Record<string, string> = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  return `${names[rankOf(card)] ?? rankOf(card)} of ${SUIT_NAME[suitOf(card)] ?? suitOf(card)}`;
}

export const red = (card: string) => "HD".includes(suitOf(card)) && card !== "JK";

/** A card's face: its rank and suit in the corner and its suit large in the
 * middle (`size`: `big` in a hand, `small` on the table, `mini` in a row). */
export function face(card: string, size: "big" | "small" | "mini" = "small", more: Record<string, unknown> = {}): HTMLElement {
  const joker = card === "JK";
  const cls = ["card", "face", size, red(card) ? "red" : "black", joker ? "joker" : "", String(more.class ?? "")].join(" ").trim();
  return h(
    "span",
    { "aria-label": spoken(card), role: "img", ...more, class: cls, "data-card": card },
    h("span", { class: "corner", "aria-hidden": "true" }, joker ? "J" : rankText(card), h("br"), joker ? "★" : SUIT_SIGN[suitOf(card)]),
    size === "mini" ? "" : h("span", { class: "pip", "aria-hidden": "true" }, joker ? "★" : SUIT_SIGN[suitOf(card)]),
  );
}

/** A card's back (a face-down card), with an optional count on it. */
export function back(size: "small" | "mini" = "small", label?: string): HTMLElement {
  return h("span", { class: `card back ${size}`, "aria-hidden": label === undefined ? "true" : undefined }, label ?? "");
}
