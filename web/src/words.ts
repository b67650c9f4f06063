// Words for people: the page never shows an API name (a preset's key, a step,
// an event's type) where a player reads it.
import type { PublicTable, TableEvent } from "./api";
import { label } from "./cards";

/** "1 card", "2 cards"; `many` for irregular plurals. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Ann", "Ann and Ben", "Ann, Ben and Cat". */
export function list(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "+3", "0", "−2" (a true minus sign: it lines up with the digits). */
export function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}

const PRESETS: Record<string, string> = {
  classic: "classic",
  circle: "closed circle",
  "mein-schiff": "Mein Schiff segelt",
  "pass-two": "pass two",
  "pass-right": "pass right",
  alternate: "left, then right",
  "my-star-shines": "My Star Shines",
  whehee: "Whehee",
  foster: "Foster",
  ochse: "Ochse, leg dich!",
  matrimony: "Matrimony",
  sevens: "Sevens",
  parliament: "Parliament",
  "fan-tan": "Fan Tan",
  dominoes: "Dominoes",
  "sevens-any-seven": "any seven opens",
  "sevens-corner": "turn the corner",
  "sevens-voluntary": "voluntary passes",
  "sevens-last-card": "last card",
  "sevens-penalty": "penalty points",
  "fan-tan-two-decks": "Fan Tan, two decks",
  "may-i": "May I?",
  "may-i-jokers": "with jokers",
};

const GAMES: Record<string, string> = { "my-ship-sails": "My Ship Sails", sevens: "Sevens", "may-i": "May I?" };

export const gameName = (game: string) => GAMES[game] ?? game.replace(/-/g, " ");
export const presetName = (preset: string) => PRESETS[preset] ?? preset.replace(/-/g, " ");

/** "Sevens", "My Ship Sails · classic", "Sevens · Parliament": the game, and
 * the preset when it says more than the game's name. */
export function title(game: string, preset: string): string {
  const name = presetName(preset);
  return name.toLowerCase() === gameName(game).toLowerCase() ? gameName(game) : `${gameName(game)} · ${name}`;
}

const NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const spell = (n: number) => NUMBERS[n] ?? String(n);

/** May I?'s contract in words: "two sets", "one set and one run". */
export function contract(sets: number | undefined, runs: number | undefined): string {
  const parts = [];
  if (sets) parts.push(`${spell(sets)} ${sets === 1 ? "set" : "sets"}`);
  if (runs) parts.push(`${spell(runs)} ${runs === 1 ? "run" : "runs"}`);
  return list(parts);
}

type Options = Record<string, unknown>;

/** One line: what a player of this table tries to do (RULES.md 2.1, 3.1, 4). */
export function goal(table: PublicTable): string {
  const o = table.options as Options;
  if (table.game === "sevens") {
    const pays = o.points === "none" && Number(o.pass_chips ?? 1) > 0;
    const corner = o.turn_the_corner ? ", and round the corner" : "";
    return (
      `Be the first to play all your cards. Rows grow from the sevens, one rank at a time up to the ace and down to the two${corner}. ` +
      (pays
        ? `No card that fits? Pass and pay ${count(Number(o.pass_chips ?? 1), "chip")} into the pot: the winner takes it.`
        : "No card that fits? Pass. The cards left in the other hands are scored.")
    );
  }
  if (table.game === "may-i") {
    const round = table.round;
    const want = round ? `this round's contract (${contract(round.contract_sets, round.contract_runs)})` : "each round's contract";
    return `Lay down ${want}, lay off on any meld, and go out first (+20). Cards left in your hand count against you. Ask “May I?” for a discard you want.`;
  }
  const win = Number(o.win_count ?? o.hand_size ?? 7);
  const how =
    o.passing === "chain"
      ? "On your turn, pass one card to the player on your left"
      : o.passing === "swap"
        ? "Swap one card blind with your neighbour, round the table"
        : `Everyone passes ${count(Number(o.pass_count ?? 1), "card")} at once, ${direction(table) ?? "left"}`;
  const call = o.declaration === "automatic" ? "the referee calls it for you" : `then call “${String(o.call ?? "My ship sails!")}”`;
  return `Collect ${win} cards of one suit. ${how}; ${call}.`;
}

/** "left" or "right": where this round's passes go (My Ship Sails). */
export function direction(table: PublicTable): string | undefined {
  const d = table.round?.direction;
  return d === "left" || d === "right" ? d : undefined;
}

/** What the table waits for, in words, for the seat `me` (undefined: a spectator). */
export function waitingFor(table: PublicTable, me: number | undefined): string {
  const names = (table.awaiting?.seats ?? []).map((s) => (s === me ? "you" : nameOf(table, s)));
  const action = table.awaiting?.action ?? "";
  const status = table.match?.status;
  if (status && status !== "in-progress") return "The match is over.";
  const open = table.open_seats ?? [];
  if (open.length > 0) return `Waiting for players: ${count(open.length, "seat")} ${open.length === 1 ? "is" : "are"} open.`;
  if (action === "deal") return table.round ? "The round is over. The host deals the next one." : "Everyone is here. The host deals.";
  if (!names.length) return "";
  const verb = (table.game === "may-i" ? MAY_I_ACTIONS[action] : undefined) ?? ACTIONS[action] ?? action.replace(/-/g, " ");
  const mine = me !== undefined && (table.awaiting?.seats ?? []).includes(me);
  if (mine && names.length === 1) return "Your turn.";
  return `Waiting for ${list(names)} to ${verb}.`;
}

const ACTIONS: Record<string, string> = {
  pass: "choose a card to pass",
  play: "play",
  claim: "claim",
  claims: "claim (the claim window is open)",
};

const MAY_I_ACTIONS: Record<string, string> = {
  draw: "take or pass on the discard",
  "may-i": "ask or answer “May I?”",
  stock: "draw from the stock",
  play: "lay down, lay off or discard",
  final: "lay off",
};

export function nameOf(table: PublicTable, seat: number | null | undefined): string {
  if (seat === null || seat === undefined) return "nobody";
  return table.seats?.[seat]?.name ?? `seat ${seat + 1}`;
}

/** One line of the feed for a public event (docs/api.md, "Events"). */
export function describe(event: TableEvent, table?: PublicTable): string {
  const e = event as Record<string, unknown>;
  const who = (s: unknown) => (typeof s === "number" && table ? nameOf(table, s) : typeof s === "number" ? `seat ${s + 1}` : "someone");
  const seat = typeof e.name === "string" ? e.name : who(e.seat);
  const card = typeof e.card === "string" ? ` ${label(e.card)}` : "";
  const round = typeof e.round === "number" ? `Round ${e.round}` : "The round";
  const winners = Array.isArray(e.winners) ? list((e.winners as number[]).map(who)) : "";
  switch (event.type) {
    case "table-created":
      return "The table was set";
    case "first-dealer-drawn":
      return "Cards were drawn for the first dealer";
    case "seat-joined":
      return `${seat} sat down`;
    case "seat-left":
      return `${seat} left the table`;
    case "token-reissued":
      return `${seat} got a new key to their seat`;
    case "seat-bot":
      return `A bot plays for ${seat} now`;
    case "seat-bot-removed":
      return `${seat}'s bot left the seat`;
    case "round-dealt":
      return `${round} was dealt by ${who(e.dealer)}`;
    case "round-abandoned":
      return `${round} was abandoned`;
    case "move-timed-out":
      return `${seat} ran out of time: the referee moved for them`;
    case "seat-back":
      return `${seat} is back`;
    case "clock-paused":
      return "The clock is paused until someone plays";
    case "pass-chosen":
      return `${seat} chose a card to pass`;
    case "exchange-resolved":
      return `The cards went round (exchange ${e.exchange})`;
    case "claim-accepted":
      return `${seat} called it, and won`;
    case "claim-rejected":
      return `${seat} called too soon`;
    case "round-won":
      return table?.game === "sevens" ? `${who(e.winner)} played out and won ${round.toLowerCase()}` : `${winners || "Nobody"} won ${round.toLowerCase()}`;
    case "round-void":
      return `${round} ended with no winner`;
    case "card-played":
      return `${seat} played${card}`;
    case "passed":
      return e.chips ? `${seat} passed and paid ${count(Number(e.chips), "chip")}` : `${seat} passed`;
    case "last-card-missed":
      return `${seat} forgot to say “last card” and paid ${count(Number(e.chips ?? 2), "chip")}`;
    case "discard-taken":
      return `${seat} took the discard${card}`;
    case "discard-declined":
      return `${seat} passed on the discard${card}`;
    case "stock-drawn":
      return Number(e.count ?? 1) > 1 ? `${seat} drew ${count(Number(e.count), "card")} from the stock` : `${seat} drew from the stock`;
    case "laid-down":
      return `${seat} laid down their contract`;
    case "laid-off":
      return `${seat} laid off${card}`;
    case "discarded":
      return `${seat} discarded${card}`;
    case "may-i-offered":
      return `The discard${card} is up for “May I?”`;
    case "may-i-asked":
      return `${seat} asked “May I?” for${card}`;
    case "may-i-answered":
      return `${seat} ${e.allow ? "allowed it" : "said no"}`;
    case "may-i-given":
      return `${seat} took${card} and ${count(Number(e.stock_cards ?? 0), "card")} from the stock`;
    case "may-i-lapsed":
      return "Nobody asked for the discard";
    case "stock-reshuffled":
      return "The discards were shuffled into a new stock";
    case "went-out":
      return `${seat} went out`;
    case "round-blocked":
      return `${round} is blocked: nobody can go out`;
    case "lay-off-done":
      return e.auto ? `${seat} had nothing to lay off` : `${seat} finished laying off`;
    case "round-over":
      return `${round} is over${typeof e.out === "number" ? `: ${who(e.out)} went out` : ""}`;
    case "match-won":
      return `${winners || "Nobody"} won the match`;
    case "match-finished":
      return `The match is over${winners ? `: ${winners} won` : ""}`;
    case "match-abandoned":
      return "The match was ended";
    default:
      return event.type.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
  }
}
