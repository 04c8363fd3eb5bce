import axe from "axe-core";
import type { Page } from "playwright-core";

// axe-core's browser build, run through the DevTools protocol (the console's CSP allows no injected script tag).
const AXE = axe.source;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** The serious and critical axe violations on the page as it is now, one line each (empty when none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
