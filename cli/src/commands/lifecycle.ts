import { say } from "../output.ts";

/**
 * Waits for SIGINT or SIGTERM, then runs the stop steps in order. A second signal forces the exit, so a stuck
 * shutdown never traps the user.
 */
export function stopOnSignal(stops: Array<() => Promise<void>>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      say(`mailroom: ${signal} again, exiting now`);
      process.exit(130);
    }
    stopping = true;
    say(`\nmailroom: ${signal} received, stopping …`);
    (async () => {
      for (const stop of stops) await stop();
    })().then(
      () => {
        say("mailroom: stopped cleanly");
        process.exit(0);
      },
      (error: unknown) => {
        say(`mailroom: error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}
