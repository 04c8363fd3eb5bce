import { describe, expect, it } from "vitest";
import type { NamespaceInfo } from "../context.ts";
import { allowedNamespaces, selectorMatches } from "./allowed.ts";

const namespaces: NamespaceInfo[] = [
  { name: "billing", labels: { team: "payments", tier: "prod" } },
  { name: "checkout", labels: { team: "payments", tier: "staging" } },
  { name: "search", labels: { team: "discovery" } },
  { name: "sandbox", labels: {} },
];

describe("allowedNamespaces", () => {
  it("allows the names listed, whether or not the namespace exists yet", () => {
    expect(allowedNamespaces({ names: ["search", "not-yet"] }, namespaces)).toEqual(["not-yet", "search"]);
  });

  it("adds the namespaces the selector matches, once each", () => {
    expect(
      allowedNamespaces({ names: ["billing"], selector: { matchLabels: { team: "payments" } } }, namespaces),
    ).toEqual(["billing", "checkout"]);
  });

  it("allows none without names or selector", () => {
    expect(allowedNamespaces({}, namespaces)).toEqual([]);
  });
});

describe("selectorMatches (metav1.LabelSelector)", () => {
  const labels = { team: "payments", tier: "prod" };
  it.each([
    [{}, true],
    [{ matchLabels: { team: "payments" } }, true],
    [{ matchLabels: { team: "payments", tier: "staging" } }, false],
    [{ matchExpressions: [{ key: "tier", operator: "In" as const, values: ["prod", "canary"] }] }, true],
    [{ matchExpressions: [{ key: "tier", operator: "In" as const, values: ["staging"] }] }, false],
    [{ matchExpressions: [{ key: "tier", operator: "NotIn" as const, values: ["staging"] }] }, true],
    [{ matchExpressions: [{ key: "zone", operator: "NotIn" as const, values: ["a"] }] }, true],
    [{ matchExpressions: [{ key: "team", operator: "Exists" as const }] }, true],
    [{ matchExpressions: [{ key: "zone", operator: "Exists" as const }] }, false],
    [{ matchExpressions: [{ key: "zone", operator: "DoesNotExist" as const }] }, true],
    [{ matchExpressions: [{ key: "team", operator: "DoesNotExist" as const }] }, false],
    [
      {
        matchLabels: { team: "payments" },
        matchExpressions: [{ key: "tier", operator: "In" as const, values: ["staging"] }],
      },
      false,
    ],
  ])("%j → %s", (selector, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });

  it("does not match a label inherited from Object.prototype", () => {
    expect(selectorMatches({ matchExpressions: [{ key: "toString", operator: "Exists" }] }, {})).toBe(false);
  });
});
