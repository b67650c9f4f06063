// What the generated types refuse: each line below must be a compile error
// (`@ts-expect-error` itself fails the compile when the line compiles).
import type { Schemas, ViewOf } from "./client";

const players = ["Ann", "Ben", "Cat", "Dan"];

// A misspelt problem code.
// @ts-expect-error "not-you-turn" is no code of the spec
export const misspelt: Schemas["Problem"]["code"] = "not-you-turn";

export function refusedWith(code: Schemas["Problem"]["code"]): boolean {
  // @ts-expect-error comparing with a code the spec does not have
  return code === "not-you-turn";
}

// An option of the wrong type, and another game's option.
// @ts-expect-error claim_window_ms is a number
export const wrongType: Schemas["CreateTable"] = { variant: "classic", players, options: { claim_window_ms: "0" } };
// @ts-expect-error opening is Sevens', not My Ship Sails'
export const otherGames: Schemas["CreateTable"] = { variant: "classic", players, options: { opening: "7C" } };
// @ts-expect-error no preset has this name
export const noPreset: Schemas["CreateTable"] = { variant: "sevens-two-decks", players };

// A view narrowed to Sevens has no My Ship Sails member, and one not yet narrowed neither.
export function sevensOnly(view: ViewOf<"sevens">, any: Schemas["SeatView"]): unknown[] {
  return [
    // @ts-expect-error `to_choose` is My Ship Sails'
    view.to_choose,
    // @ts-expect-error `playable` is Sevens' only: narrow by `game` first
    any.playable,
  ];
}

// An event type the spec does not have, and a member of another type.
export function eventTypes(event: Schemas["Event"]): unknown {
  // @ts-expect-error no event type "card-passed"
  if (event.type === "card-passed") return event;
  // @ts-expect-error `card` is no member of every event
  return event.card;
}

// A round status and a move of the wrong shape.
// @ts-expect-error My Ship Sails' rounds are `passing`, `claim-window` or `over`
export const status: ViewOf<"my-ship-sails">["round_status"] = "playing";
// @ts-expect-error a Sevens turn passes with `true` only
export const turn: Schemas["Turn"] = { pass: false };
