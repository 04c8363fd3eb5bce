/**
 * Which namespaces a ClusterSendingDomain allows: those named, and those whose labels its selector matches
 * (metav1.LabelSelector semantics: every matchLabels pair and every expression must hold).
 */
import type { ClusterSendingDomainSpec } from "../../crds/cluster-sending-domain.ts";
import type { NamespaceInfo } from "../context.ts";

type Selector = NonNullable<ClusterSendingDomainSpec["allowedNamespaces"]["selector"]>;

/** Whether `labels` satisfy `selector`. An empty selector ({}) matches every namespace, as in Kubernetes. */
export function selectorMatches(selector: Selector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    const holds =
      operator === "In"
        ? has && values.includes(value ?? "")
        : operator === "NotIn"
          ? !has || !values.includes(value ?? "")
          : operator === "Exists"
            ? has
            : !has;
    if (!holds) return false;
  }
  return true;
}

/** The allowed namespaces, sorted and without repeats. Named ones are allowed whether or not they exist yet. */
export function allowedNamespaces(
  allowed: ClusterSendingDomainSpec["allowedNamespaces"],
  namespaces: readonly NamespaceInfo[],
): string[] {
  const names = new Set(allowed.names ?? []);
  const { selector } = allowed;
  if (selector) for (const n of namespaces) if (selectorMatches(selector, n.labels)) names.add(n.name);
  return [...names].sort();
}
