import pg from "pg";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, "query">;

export interface PoolOptions {
  url: string;
  max: number;
  applicationName: string;
  onError?: (error: Error) => void;
  /** Settings of every session of the pool (`-c name=value` at connect), e.g. planner settings for one use. */
  settings?: Readonly<Record<string, string>>;
}

/**
 * Settings of every Mailroom session. A GIN index's pending list (the email log's search trigrams, tags,
 * recipients) is read whole by every query through it and merged by the insert that finds it over this bound:
 * 256 kB instead of Postgres' 4 MB (issue 33 item 2, ADR 0061). Set per session rather than by `alter index`
 * on the partitions already written, which would lock their writers out (new weeks get it as an index option).
 */
const SESSION_SETTINGS = { gin_pending_list_limit: "256kB" } as const;

// Each pool's connections that are open (connected and not yet closed), for endPool.
const openConnections = new WeakMap<Pool, Set<pg.Client>>();

/**
 * A pg pool with bounded waits: a query never hangs on an unreachable database, it fails fast so the API
 * can answer 503 and recover by itself when Postgres returns.
 */
export function createPool(options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    query_timeout: 30_000,
    keepAlive: true,
    options: Object.entries({ ...SESSION_SETTINGS, ...options.settings })
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(" "),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", (error) => options.onError?.(error));
  const open = new Set<pg.Client>();
  openConnections.set(pool, open);
  pool.on("connect", (client) => {
    open.add(client);
    client.once("end", () => open.delete(client));
    client.on("error", (error) => options.onError?.(error));
  });
  return pool;
}

/**
 * Ends a pool and waits until its connections have closed (at most `timeoutMs`). pg-pool's own `end()`
 * resolves once it has asked its clients to end, before their sockets close: a Postgres stopped right after
 * (`mailroom run` stops it last) would still find those sessions, terminate them, and each would log an error.
 */
export async function endPool(pool: Pool, timeoutMs = 5_000): Promise<void> {
  await pool.end();
  const closing = [...(openConnections.get(pool) ?? [])];
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(closing.map((client) => new Promise((resolve) => client.once("end", resolve)))),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/** Runs `fn` in a transaction on one client, committing on success and rolling back on any error. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query("begin");
    result = await fn(client);
    await client.query("commit");
  } catch (error) {
    // A client whose rollback fails (its connection broke) is destroyed, not returned to the pool.
    const broken = await client.query("rollback").then(
      () => undefined,
      (rollbackError: Error) => rollbackError,
    );
    client.release(broken);
    throw error;
  }
  client.release();
  return result;
}
