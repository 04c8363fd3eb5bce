import { createServer, type Server, Socket } from "node:net";

/**
 * A TCP proxy in front of Postgres that can lose one answer: armed with a marker (a prepared statement's name,
 * which the client sends in its Parse and Bind messages), it holds back what the server answers to each client
 * message carrying the marker until the server's ReadyForQuery says that statement's transaction has ended
 * (committed, for a statement on its own). An answer without rows is passed on then; the first with rows is
 * not: both sides are closed instead. The client sees its connection end mid-query, as when a failover cuts it
 * just after a commit: the database did the work, the client does not know it.
 */
export interface AnswerCutProxy {
  /** `postgres://` URL of the proxy (same user, password and database as `databaseUrl`). */
  url: string;
  /**
   * Cuts the next answer with rows to a statement whose messages contain `marker`; resolves once it has.
   * Answers without rows (a take that found nothing) pass.
   */
  cutNextAnswer(marker: string): Promise<void>;
  /** How many answers it has cut. */
  cuts(): number;
  close(): Promise<void>;
}

const READY_FOR_QUERY = 0x5a; // 'Z'
const DATA_ROW = 0x44; // 'D'

export async function startAnswerCutProxy(databaseUrl: string): Promise<AnswerCutProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let armed: { marker: Buffer; cut: () => void } | undefined;
  let cuts = 0;

  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    client.on("error", closeBoth).on("close", closeBoth);
    upstream.on("error", closeBoth).on("close", closeBoth);
    // Set while the answer to a statement carrying the armed marker is held back. The client sends its next
    // statement only after the ReadyForQuery that ends this one, so the held bytes start at a message boundary.
    let holding: { cut: () => void; held: Buffer[]; parsed: Buffer; rows: boolean } | undefined;

    client.on("data", (chunk: Buffer) => {
      if (armed && !holding && chunk.includes(armed.marker)) {
        holding = { cut: armed.cut, held: [], parsed: Buffer.alloc(0), rows: false };
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!holding) {
        client.write(chunk);
        return;
      }
      holding.held.push(chunk);
      // Messages: a type byte, then an int32 length that counts itself.
      let rest = Buffer.concat([holding.parsed, chunk]);
      while (rest.length >= 5) {
        const length = rest.readInt32BE(1);
        if (rest.length < 1 + length) break;
        const type = rest[0];
        rest = rest.subarray(1 + length);
        if (type === DATA_ROW) holding.rows = true;
        if (type !== READY_FOR_QUERY) continue;
        const answered = holding;
        holding = undefined;
        if (answered.rows && armed?.cut === answered.cut) {
          armed = undefined;
          cuts += 1;
          closeBoth();
          answered.cut();
        } else {
          // Everything held, the bytes after the ReadyForQuery included (none, without pipelining).
          client.write(Buffer.concat(answered.held));
        }
        return;
      }
      holding.parsed = rest;
    });
    upstream.connect(Number(target.port || 5432), target.hostname);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the proxy has no TCP address");
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);

  return {
    url: url.toString(),
    cutNextAnswer: (marker) =>
      new Promise<void>((resolve) => {
        armed = { marker: Buffer.from(marker), cut: resolve };
      }),
    cuts: () => cuts,
    close: async () => {
      armed = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
