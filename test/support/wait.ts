export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `accept` holds or `timeoutMs` passes, polling every 25 ms; returns the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await sleep(25);
  }
}
