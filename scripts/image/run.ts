// Running programs inside an image with buildah (no daemon), and the small HTTP helpers the smoke run needs.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import https from "node:https";

/** `buildah <args>`, resolving with stdout; a non-zero exit rejects with buildah's own message. */
export function buildah(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("buildah", args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`buildah ${args.join(" ")}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** A working container and how every program in it is started. */
export interface RunSpec {
  container: string;
  entrypoint: string[];
  env: Record<string, string>;
  /** `host:container[:ro]` bind mounts. */
  mounts: string[];
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Program {
  name: string;
  done: Promise<Outcome>;
  exited(): boolean;
  output(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves with how it ended. */
  stop(): Promise<Outcome>;
}

/**
 * One program in the container: `buildah run --isolation chroot` (the only isolation that works without a
 * daemon or user namespaces here) as the image's own user, /tmp a tmpfs like the chart's emptyDir.
 */
export function startProgram(
  spec: RunSpec,
  args: string[],
  options: { entrypoint?: string[] } = {},
): Program {
  const argv = [
    "run",
    "--isolation",
    "chroot",
    "--mount",
    "type=tmpfs,destination=/tmp",
    ...spec.mounts.flatMap((mount) => ["--volume", mount]),
    ...Object.entries(spec.env).flatMap(([name, value]) => ["--env", `${name}=${value}`]),
    spec.container,
    "--",
    ...(options.entrypoint ?? spec.entrypoint),
    ...args,
  ];
  const child: ChildProcess = spawn("buildah", argv, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  let exited = false;
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Outcome>((resolve) => {
    child.on("close", (code, signal) => {
      exited = true;
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.on("error", (error) => {
      exited = true;
      resolve({ code: 127, stdout, stderr: `${stderr}${error.message}` });
    });
  });
  const signal = async (name: NodeJS.Signals, target: "program" | "all") => {
    if (exited || child.pid === undefined) return;
    try {
      // SIGTERM goes to the program alone, as a kubelet sends it: buildah, signalled itself, kills its child.
      if (target === "program") process.kill(await innermost(child.pid), name);
      else process.kill(-child.pid, name);
    } catch {
      // Already gone.
    }
  };
  return {
    name: args[0] ?? "program",
    done,
    exited: () => exited,
    output: () => `${stdout}${stderr}`.split("\n").slice(-40).join("\n"),
    stop: async () => {
      await signal("SIGTERM", "program");
      const timer = setTimeout(() => void signal("SIGKILL", "all"), 30_000);
      const outcome = await done;
      clearTimeout(timer);
      return outcome;
    },
  };
}

/** The deepest descendant of `pid` (buildah run → buildah-chroot-runtime → buildah-chroot-exec → the program). */
async function innermost(pid: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    // Field 4 is the parent; the command name (field 2) may hold spaces, so count from its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  let current = pid;
  for (;;) {
    const next = [...parents].find(([, parent]) => parent === current)?.[0];
    if (next === undefined) return current;
    current = next;
  }
}

/** Polls `check` until it holds; fails early when one of the programs it depends on has exited. */
export async function waitFor(
  what: string,
  timeoutMs: number,
  programs: Program[],
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = programs.find((program) => program.exited());
    if (dead) throw new Error(`mailroom ${dead.name} exited while waiting for ${what}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`gave up waiting for ${what} after ${timeoutMs / 1000} s`);
}

/** A TCP port free on loopback right now. */

/** One HTTPS request trusting only `ca`, with a bearer key and a JSON body. */
export function httpsJson(
  ca: string,
  method: string,
  url: string,
  key: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answer, read field by field by the caller
): Promise<{ status: number; text: string; body: any }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method,
        ca,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        timeout: 15_000,
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: the caller reports the text.
          }
          resolve({ status: response.statusCode ?? 0, text, body: parsed ?? {} });
        });
      },
    );
    request.on("timeout", () => request.destroy(new Error(`${method} ${url}: no answer in 15 s`)));
    request.on("error", reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
