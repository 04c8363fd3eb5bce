import { say } from "../output.ts";

/**
 * Waits for SIGINT or SIGTERM (or Ctrl-C typed on the terminal), then runs the stop steps in order. A second
 * one forces the exit, so a stuck shutdown never traps the user.
 */
export function stopOnSignal(stops: Array<() => Promise<void>>): void {
  let stopping = false;
  const handler = (signal: string) => {
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
  readCtrlCFromTerminal(() => handler("Ctrl-C"));
}

/**
 * On a terminal, Ctrl-C is read as a key rather than left to the terminal, which would send SIGINT to the
 * whole foreground process group: to `make` (which then prints "Interrupt" and fails) and to the embedded
 * Postgres, a child in the same group, which would shut down under the running programs and make them log
 * connection errors. Read here, it reaches this process alone, and the stop steps stop the programs before
 * Postgres. Raw mode leaves output processing on; Node restores the terminal's mode when the process exits.
 */
function readCtrlCFromTerminal(onCtrlC: () => void): void {
  const stdin = process.stdin;
  if (!stdin.isTTY) return;
  stdin.setRawMode(true);
  stdin.on("data", (chunk: Buffer) => {
    if (chunk.includes(0x03)) onCtrlC();
  });
  stdin.resume();
}
