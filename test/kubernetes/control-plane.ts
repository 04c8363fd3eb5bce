/**
 * A real Kubernetes control plane for the tests, started the way controller-runtime's envtest starts one: etcd,
 * kube-apiserver and kube-controller-manager (garbage collector, namespace and service-account controllers) as
 * processes on loopback ports, the API server with a serving certificate from a test CA, a service-account
 * signing key (so TokenRequest issues real ServiceAccount tokens), a static token for the admin and RBAC
 * authorization. The binaries come from test/kubernetes/build/build.sh (built once per machine, cached).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { freePort } from "../support/ports.ts";
import { type ApiConnection, type ApiResponse, apiRequest, writeKubeconfig } from "./api.ts";

const BUILD_SCRIPT = path.join(import.meta.dirname, "build", "build.sh");
const STOP_GRACE_MS = 10_000;

/** Builds (or finds cached) the control plane's binaries; returns the directory holding them. */
export function controlPlaneBinaries(): string {
  const out = execFileSync("bash", [BUILD_SCRIPT], { stdio: ["ignore", "pipe", "inherit"] });
  const dir = out.toString().trim().split("\n").at(-1);
  if (!dir) throw new Error(`${BUILD_SCRIPT} printed no directory`);
  return dir;
}

export interface ControlPlane extends ApiConnection {
  /** A kubeconfig file for the admin (group system:masters). */
  readonly adminKubeconfig: string;
  /** gitVersion the server reports at /version. */
  readonly version: string;
  /** Calls the API as the admin; the parsed JSON body (or text) and the status code. */
  request(method: string, apiPath: string, body?: unknown, contentType?: string): Promise<ApiResponse>;
  stop(): Promise<void>;
}

interface Component {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Set when the process could not be started at all (a missing binary, say). */
  spawnError?: Error;
}

/** Components still running; killed if this process exits without stopping them (a crashed test runner). */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

async function tail(file: string, lines = 40): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").slice(-lines).join("\n");
}

function startComponent(dir: string, name: string, binary: string, args: string[]): Component {
  const logFile = path.join(dir, `${name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  const component: Component = { name, child, logFile };
  running.add(child);
  child.once("exit", () => running.delete(child));
  child.once("error", (error) => {
    component.spawnError = error;
    running.delete(child);
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return component;
}

/** Polls `check` until it resolves true; fails with the components' logs when one exits or time runs out. */
async function waitUntil(
  what: string,
  components: Component[],
  check: () => Promise<boolean>,
  timeoutMs = 180_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = components.find(
      (c) => c.spawnError || c.child.exitCode !== null || c.child.signalCode !== null,
    );
    if (dead) {
      const why = dead.spawnError ? `could not start (${dead.spawnError.message})` : "exited";
      throw new Error(`${dead.name} ${why} while waiting for ${what}:\n${await tail(dead.logFile)}`);
    }
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) {
      const logs = await Promise.all(
        components.map(async (c) => `--- ${c.name}\n${await tail(c.logFile, 15)}`),
      );
      throw new Error(`timed out waiting for ${what}\n${logs.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function stopComponent(c: Component): Promise<void> {
  if (c.spawnError || c.child.exitCode !== null || c.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.child.once("exit", () => resolve()));
  c.child.kill("SIGTERM");
  const timer = setTimeout(() => c.child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Starts etcd, kube-apiserver and kube-controller-manager; resolves once /readyz answers ok. */
export async function startControlPlane(binaries = controlPlaneBinaries()): Promise<ControlPlane> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-kube-"));
  const bin = (name: string) => path.join(binaries, name);
  const tls = await ensureLocalCertificates(path.join(dir, "pki"), ["127.0.0.1", "localhost"]);
  const ca = await readFile(tls.caCertFile, "utf8");
  const saKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const saPrivate = path.join(dir, "pki", "sa.key");
  const saPublic = path.join(dir, "pki", "sa.pub");
  await writeFile(saPrivate, saKeys.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  await writeFile(saPublic, saKeys.publicKey.export({ type: "spki", format: "pem" }));
  const adminToken = randomBytes(24).toString("hex");
  const controllerToken = randomBytes(24).toString("hex");
  const tokens = path.join(dir, "tokens.csv");
  await writeFile(
    tokens,
    // The controller manager runs as an admin: a real cluster gives each controller its own ServiceAccount
    // (--use-service-account-credentials), which is not what these tests are about.
    `${adminToken},admin,admin,system:masters\n${controllerToken},system:kube-controller-manager,kcm,system:masters\n`,
    { mode: 0o600 },
  );

  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const peerUrl = `http://127.0.0.1:${etcdPeer}`;
  const url = `https://127.0.0.1:${apiPort}`;
  const components: Component[] = [];
  const stopAll = async () => {
    for (const c of [...components].reverse()) await stopComponent(c);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    components.push(
      startComponent(dir, "etcd", bin("etcd"), [
        `--data-dir=${path.join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        // The data is thrown away after the run: durability costs the shared machine's disk for nothing.
        "--unsafe-no-fsync",
        "--log-level=warn",
      ]),
    );
    components.push(
      startComponent(dir, "kube-apiserver", bin("kube-apiserver"), [
        `--etcd-servers=${etcdUrl}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${apiPort}`,
        `--cert-dir=${path.join(dir, "apiserver-certs")}`,
        `--tls-cert-file=${tls.certFile}`,
        `--tls-private-key-file=${tls.keyFile}`,
        `--token-auth-file=${tokens}`,
        "--authorization-mode=RBAC",
        `--service-account-key-file=${saPublic}`,
        `--service-account-signing-key-file=${saPrivate}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--api-audiences=https://kubernetes.default.svc.cluster.local",
        // Only an address range to allocate Service IPs from; nothing is ever sent there.
        "--service-cluster-ip-range=10.0.0.0/24",
        "--allow-privileged=true",
        "--profiling=false",
        "--v=1",
      ]),
    );
    await waitUntil("kube-apiserver /readyz", components, async () => {
      const res = await apiRequest({ url, ca, adminToken }, "GET", "/readyz");
      return res.status === 200;
    });
    const controllerKubeconfig = await writeKubeconfig(
      { url, ca },
      "kube-controller-manager",
      controllerToken,
      dir,
    );
    components.push(
      startComponent(dir, "kube-controller-manager", bin("kube-controller-manager"), [
        `--kubeconfig=${controllerKubeconfig}`,
        "--controllers=garbagecollector,namespace,serviceaccount",
        "--leader-elect=false",
        "--secure-port=0",
        "--use-service-account-credentials=false",
        "--v=1",
      ]),
    );
    const adminKubeconfig = await writeKubeconfig({ url, ca }, "admin", adminToken, dir);
    const call = (method: string, apiPath: string, body?: unknown, contentType?: string) =>
      apiRequest({ url, ca, adminToken }, method, apiPath, body, contentType);
    // The namespace controller's first sweep proves kube-controller-manager is up and authorized.
    await waitUntil("kube-controller-manager", components, async () => {
      const res = await call("GET", "/api/v1/namespaces/default/serviceaccounts/default");
      return res.status === 200;
    });
    const version = ((await call("GET", "/version")).body as { gitVersion?: string }).gitVersion ?? "unknown";
    return {
      url,
      ca,
      adminKubeconfig,
      adminToken,
      version,
      request: call,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
