export { type SimulatorMailbox, simulatorMailboxOf } from "./addresses.ts";
export { simulatorRetryPolicy } from "./retry.ts";
