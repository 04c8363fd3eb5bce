import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { migrate } from "@mailroom/core/db";
import pg from "pg";
import { freePort } from "../../support/ports.ts";
import { haproxyConfig, type Node, patroniConfig, SUPERUSER } from "./patroni-config.ts";
import { descendants, postmasterPid } from "./processes.ts";

const NODES = ["pg1", "pg2", "pg3"] as const;
const APP = { username: "mailroom", password: "mailroom" };

/**
 * Three PostgreSQL 15 nodes under Patroni (etcd v3 as the DCS, `synchronous_mode` on), behind HAProxy: a
 * read-write port routed to whichever node answers Patroni's `GET /primary`, and a read-only port over the
 * nodes answering `GET /replica` — what a Kubernetes `-rw` and `-ro` Service do for a CloudNativePG or Zalando
 * cluster. HAProxy cuts the sessions of a node it marks down, so no client stays on a demoted primary.
 */
export interface PatroniCluster {
  /** The migrated `mailroom` database through HAProxy's read-write port. */
  url: string;
  /** The same database through HAProxy's read-only port (replicas only). */
  readUrl: string;
  /** The node answering `GET /primary`, if one does. */
  leader(): Promise<string | undefined>;
  /** Nodes whose Patroni says they stream from the leader (`GET /replica`). */
  replicas(): Promise<string[]>;
  /** kill -9 of a node's Patroni and its whole postmaster process group: the node is gone, as a lost pod. */
  kill(name: string): void;
  /** Starts a killed node's Patroni again (the pod restarted); it rejoins as a replica (pg_rewind). */
  restart(name: string): Promise<void>;
  /** A planned switchover from the leader to its synchronous standby, through Patroni's REST API. */
  switchover(): Promise<{ from: string; to: string }>;
  /** True when a write through the read-write port commits now. */
  primaryAnswers(): Promise<boolean>;
  stop(): Promise<void>;
}

async function rest(
  node: Node,
  route: string,
  init?: RequestInit,
  timeoutMs = 2_000,
): Promise<Response | undefined> {
  try {
    return await fetch(`http://127.0.0.1:${node.restPort}${route}`, {
      ...init,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return undefined;
  }
}

/** The uid/gid Postgres runs as: `postgres` under root (it refuses root), else the current user. */
function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`patroni cluster: ${what} not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Starts etcd, three Patroni nodes and HAProxy on loopback ports; creates and migrates `mailroom`. */
export async function startPatroniCluster(progress: (line: string) => void): Promise<PatroniCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-fault-patroni-"));
  const ids = postgresIds();
  await chmod(dir, 0o755);
  if (ids) await chown(dir, ids.uid, ids.gid);
  const children: ChildProcess[] = [];
  const launch = (name: string, command: string, args: string[], asPostgres: boolean) => {
    const log = createWriteStream(path.join(dir, `${name}.out`), { flags: "a" });
    const child = spawn(command, args, {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      ...(asPostgres && ids ? ids : {}),
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once("exit", () => log.end());
    children.push(child);
    return child;
  };
  const nodes: Node[] = [];
  const stopAll = async () => {
    const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
    // Patroni stops its Postgres on SIGTERM (fast shutdown); whatever is left after a while is killed.
    for (const child of children) if (alive(child)) child.kill("SIGTERM");
    const deadline = Date.now() + 15_000;
    while (children.some(alive) && Date.now() < deadline) await sleep(200);
    for (const pid of nodes.flatMap((n) => descendants(postmasterPid(n)))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already stopped by its Patroni.
      }
    }
    for (const child of children) if (alive(child)) child.kill("SIGKILL");
    if (process.env.MAILROOM_FAULT_KEEP_LOGS) process.stdout.write(`patroni logs kept in ${dir}\n`);
    else await rm(dir, { recursive: true, force: true });
  };
  try {
    return await bootstrap();
  } catch (error) {
    await stopAll();
    throw error;
  }

  async function bootstrap(): Promise<PatroniCluster> {
    const [etcdClient, etcdPeer, rwPort, roPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    launch(
      "etcd",
      "/usr/bin/etcd",
      [
        "--name=fault",
        `--data-dir=${path.join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=fault=http://127.0.0.1:${etcdPeer}`,
        "--initial-cluster-state=new",
      ],
      false,
    );
    await waitFor(
      "etcd",
      async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => undefined))?.ok === true,
      20_000,
    );

    for (const name of NODES) {
      const node: Node = {
        name,
        pgPort: await freePort(),
        restPort: await freePort(),
        dataDir: path.join(dir, name),
        configFile: path.join(dir, `${name}.yml`),
      };
      await mkdir(path.join(dir, `${name}-log`));
      if (ids) await chown(path.join(dir, `${name}-log`), ids.uid, ids.gid);
      await writeFile(node.configFile, patroniConfig(node, etcdClient, dir), { mode: 0o644 });
      nodes.push(node);
    }
    const startPatroni = (node: Node) => {
      node.patroni = launch(node.name, "/usr/bin/patroni", [node.configFile], true);
    };
    const byName = (name: string) => {
      const node = nodes.find((n) => n.name === name);
      if (!node) throw new Error(`no node ${name}`);
      return node;
    };
    const leader = async () => {
      for (const node of nodes) if ((await rest(node, "/primary"))?.status === 200) return node.name;
      return undefined;
    };
    const replicas = async () => {
      const up: string[] = [];
      for (const node of nodes) if ((await rest(node, "/replica"))?.status === 200) up.push(node.name);
      return up;
    };

    // The first node bootstraps alone (initdb); the others then clone it, so no two race for the leader key.
    const [first, ...others] = nodes as [Node, ...Node[]];
    startPatroni(first);
    await waitFor("the first node leading", async () => (await leader()) === first.name, 60_000);
    for (const node of others) startPatroni(node);
    await waitFor("two streaming replicas", async () => (await replicas()).length === 2, 90_000);
    progress(`patroni: leader ${first.name}, replicas ${(await replicas()).join(", ")}`);

    const haproxyFile = path.join(dir, "haproxy.cfg");
    await writeFile(haproxyFile, haproxyConfig(nodes, rwPort, roPort));
    launch("haproxy", "/usr/sbin/haproxy", ["-db", "-f", haproxyFile], false);

    const admin = `postgres://${SUPERUSER.username}:${SUPERUSER.password}@127.0.0.1:${rwPort}/postgres`;
    // HAProxy counts every server up until its first checks: wait until the read-write port reaches only the
    // primary (a few writes in a row), and the read-only port only replicas.
    let writes = 0;
    await waitFor(
      "the read-write port on the primary",
      async () => {
        writes = (await canQuery(admin, "select txid_current()")) ? writes + 1 : 0;
        return writes >= 5;
      },
      20_000,
    );
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create role ${APP.username} login password '${APP.password}'`);
    await client.query(`create database mailroom owner ${APP.username}`);
    await client.end();
    const url = `postgres://${APP.username}:${APP.password}@127.0.0.1:${rwPort}/mailroom`;
    const readUrl = `postgres://${APP.username}:${APP.password}@127.0.0.1:${roPort}/mailroom`;
    await migrate({ url });
    let reads = 0;
    await waitFor(
      "the read-only port on replicas",
      async () => {
        reads = (await canQuery(readUrl, "select 1 where pg_is_in_recovery()", 1)) ? reads + 1 : 0;
        return reads >= 5;
      },
      20_000,
    );

    return {
      url,
      readUrl,
      leader,
      replicas,
      kill(name) {
        const node = byName(name);
        // The pod is gone: its Patroni, the postmaster and every child of it (backends, walsenders and helpers
        // each sit in a process group of their own, so a group kill would miss them), all at once.
        const pids = [...descendants(node.patroni?.pid), ...descendants(postmasterPid(node))];
        node.patroni = undefined;
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      },
      async restart(name) {
        const node = byName(name);
        startPatroni(node);
        await waitFor(`${name} streaming again`, async () => (await replicas()).includes(name), 90_000);
      },
      async switchover() {
        const from = await leader();
        const node = from ? byName(from) : undefined;
        if (!node) throw new Error("switchover: no leader");
        // synchronous_mode: Patroni refuses a switchover (412) until a standby is synchronous again after a failover.
        const sync = async () =>
          (await Promise.all(nodes.map((n) => rest(n, "/sync")))).some((r) => r?.status === 200);
        await waitFor("a synchronous standby", sync, 90_000);
        const res = await rest(
          node,
          "/switchover",
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ leader: from }),
          },
          // Patroni answers once the switchover is done (or failed).
          60_000,
        );
        const text = (await res?.text()) ?? "no answer";
        if (res?.status !== 200) throw new Error(`switchover refused: ${res?.status} ${text}`);
        let to: string | undefined;
        await waitFor(
          "a new leader",
          async () => {
            to = await leader();
            return to !== undefined && to !== from;
          },
          60_000,
        );
        return { from: node.name, to: to ?? "?" };
      },
      primaryAnswers: () => canQuery(url, "select txid_current()"),
      stop: () => stopAll(),
    };
  }
}
/** True when `sql` runs on `url` (and returns `rows` rows, when given). */
async function canQuery(url: string, sql = "select 1", rows?: number): Promise<boolean> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 2_000,
    query_timeout: 2_000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    const result = await client.query(sql);
    return rows === undefined || result.rowCount === rows;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
