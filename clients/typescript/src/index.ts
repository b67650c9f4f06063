// card-referee-client: typed calls to the API and a live seat.
//   import { connectSeat, createApi, ok } from "card-referee-client";
export { bearer, createApi, ok, Refused } from "./api.js";
export type {
  Api,
  ApiOptions,
  components,
  paths,
  Problem,
  PublicTable,
  Schemas,
  SeatCredentials,
  SeatView,
  TableEvent,
} from "./api.js";
export { connectSeat, connectTable, Live, notOlder } from "./live.js";
export type { Ended, EventsGone, EventSourceClass, LiveEvents, LiveOptions, PresenceChange, Status } from "./live.js";
