import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The postmaster's pid from its pid file (0 when it is not running). */
export function postmasterPid(node: { dataDir: string }): number {
  const pidFile = path.join(node.dataDir, "postmaster.pid");
  return existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : 0;
}

/** `pid` and every process below it, from /proc (nothing when `pid` is unset or gone). */
export function descendants(pid: number | undefined): number[] {
  if (!pid) return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 2nd field after the command name, which may itself hold spaces and parens.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Exited while we looked.
    }
  }
  const found = [pid];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i] as number) ?? []));
  return found;
}
