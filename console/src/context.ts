import type { Api, KeyInfo } from "./api.ts";

/** What every view gets: the API client, the signed-in key, and a way to stop its timers when left. */
export interface ViewContext {
  api: Api;
  key: KeyInfo;
  /** Runs `fn` every `ms` until the view is left (live refresh). */
  every(ms: number, fn: () => Promise<void> | void): void;
  /** Whether this view is still the one on screen (answers arriving after navigation are dropped). */
  current(): boolean;
}

export type View = (ctx: ViewContext, outlet: HTMLElement, params: string[]) => Promise<void> | void;
