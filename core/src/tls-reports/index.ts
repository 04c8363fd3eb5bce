export type { TlsOutcome } from "./outcome.ts";
