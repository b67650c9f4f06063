// Cards as the API writes them: rank then suit ("TH", "7D"), "JK" a joker.
const SUITS = "SHCD"; // alternating colours when sorted
const RANKS = "AKQJT98765432";
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

/** "10♥", as a person reads it. */
export function label(card: string): string {
  if (card === "JK") return "🃏";
  const rank = rankOf(card) === "T" ? "10" : rankOf(card);
  return rank + (SUIT_SIGN[suitOf(card)] ?? suitOf(card));
}

/** "ten of hearts", for screen readers. */
export function spoken(card: string): string {
  if (card === "JK") return "joker";
  const names: Record<string, string> = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  return `${names[rankOf(card)] ?? rankOf(card)} of ${SUIT_NAME[suitOf(card)] ?? suitOf(card)}`;
}

export const red = (card: string) => "HD".includes(suitOf(card)) && card !== "JK";
