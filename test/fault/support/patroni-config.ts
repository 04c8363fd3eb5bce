import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** Debian's PostgreSQL 15 (the `postgresql` package), which Patroni drives. */
export const PG_BIN = "/usr/lib/postgresql/15/bin";
export const SUPERUSER = { username: "postgres", password: "fault-superuser" };

/** One PostgreSQL node: its ports, its data directory, its Patroni (while running). */
export interface Node {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  configFile: string;
  patroni?: ChildProcess;
}

/** One node's Patroni configuration (JSON is YAML: no YAML writer needed). */
export function patroniConfig(node: Node, etcdPort: number, dir: string): string {
  // ttl 10 / loop_wait 2 as measured in DESIGN.md §11.
  return JSON.stringify({
    scope: "mailroom-fault",
    namespace: "/mailroom/",
    name: node.name,
    log: { level: "INFO", dir: path.join(dir, `${node.name}-log`) },
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: `127.0.0.1:${etcdPort}` },
    bootstrap: {
      dcs: {
        ttl: 10,
        loop_wait: 2,
        retry_timeout: 4,
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: { max_connections: 200, wal_log_hints: "on", hot_standby: "on" },
        },
      },
      initdb: [{ encoding: "UTF8" }, { locale: "C" }, "data-checksums"],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: PG_BIN,
      pgpass: path.join(dir, `${node.name}.pgpass`),
      authentication: {
        superuser: SUPERUSER,
        replication: { username: "replicator", password: "fault-replicator" },
        rewind: { username: "rewinder", password: "fault-rewinder" },
      },
      parameters: { unix_socket_directories: dir, fsync: "on" },
      pg_hba: [
        "local all all trust",
        "host replication replicator 127.0.0.1/32 scram-sha-256",
        "host all all 127.0.0.1/32 scram-sha-256",
      ],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  });
}

/** HAProxy in front of the nodes: the read-write and read-only ports. */
export function haproxyConfig(nodes: readonly Node[], rwPort: number, roPort: number): string {
  const servers = nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`);
  const listen = (name: string, port: number, check: string) => [
    `listen ${name}`,
    `  bind 127.0.0.1:${port}`,
    `  option httpchk GET ${check}`,
    "  http-check expect status 200",
    // Checked twice a second; a node marked down has its sessions cut, so none lingers on a demoted primary.
    "  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions",
    ...servers,
  ];
  return [
    "global",
    "  maxconn 2000",
    "defaults",
    "  mode tcp",
    "  timeout connect 2s",
    "  timeout client 30m",
    "  timeout server 30m",
    "  timeout check 1s",
    ...listen("rw", rwPort, "/primary"),
    ...listen("ro", roPort, "/replica"),
    "",
  ].join("\n");
}

/** What the Patroni fault run needs on the machine: scripts/install-system-packages.sh installs it. */
export function patroniMissing(): string | undefined {
  const needed = ["/usr/bin/patroni", "/usr/bin/etcd", "/usr/sbin/haproxy", `${PG_BIN}/postgres`];
  const missing = needed.filter((file) => !existsSync(file));
  return missing.length > 0
    ? `missing ${missing.join(", ")} (run scripts/install-system-packages.sh)`
    : undefined;
}
