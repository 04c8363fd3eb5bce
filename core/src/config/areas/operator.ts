import { z } from "zod";
import { type AreaEnv, bool, port } from "./kinds.ts";

/** `mailroom operator`: what it watches and its leader election. */
export const variables = {
  MAILROOM_OPERATOR_NAMESPACE: z.string().min(1).optional(),
  MAILROOM_OPERATOR_LEASE_NAME: z.string().min(1).default("mailroom-operator"),
  MAILROOM_OPERATOR_LEASE_NAMESPACE: z.string().min(1).default("mailroom"),
  MAILROOM_OPERATOR_IDENTITY: z.string().min(1).optional(),
  MAILROOM_OPERATOR_OWNER_REFERENCES: bool.default(true),
  MAILROOM_OPERATOR_INTERNAL_PORT: port.default(9466),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    operator: {
      // One namespace, or several comma-separated (the chart's operator.watchNamespaces); unset: all.
      namespaces: e.MAILROOM_OPERATOR_NAMESPACE?.split(",")
        .map((n) => n.trim())
        .filter(Boolean),
      leaseName: e.MAILROOM_OPERATOR_LEASE_NAME,
      leaseNamespace: e.MAILROOM_OPERATOR_LEASE_NAMESPACE,
      identity: e.MAILROOM_OPERATOR_IDENTITY,
      ownerReferences: e.MAILROOM_OPERATOR_OWNER_REFERENCES,
      internalPort: e.MAILROOM_OPERATOR_INTERNAL_PORT,
    },
  };
}
