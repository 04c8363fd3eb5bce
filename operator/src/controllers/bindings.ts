/**
 * SQL of operator_bindings (core/migrations/0009_operator.sql): which custom resource made which row. The
 * operator owns this table, so its SQL lives with the operator's controllers.
 */
import { isUniqueViolation, type Queryable } from "@mailroom/core/db";
import type { MailroomKind } from "../crds/index.ts";

export interface Binding {
  kind: MailroomKind;
  namespace: string;
  name: string;
  uid: string;
  targetId: string | null;
  claim: string | null;
}

interface BindingRow {
  kind: MailroomKind;
  namespace: string;
  name: string;
  uid: string;
  target_id: string | null;
  claim: string | null;
}

const toBinding = (r: BindingRow): Binding => ({
  kind: r.kind,
  namespace: r.namespace,
  name: r.name,
  uid: r.uid,
  targetId: r.target_id,
  claim: r.claim,
});

/** The binding of one resource, whatever its uid. */
export async function getBinding(
  db: Queryable,
  kind: MailroomKind,
  namespace: string,
  name: string,
): Promise<Binding | undefined> {
  const { rows } = await db.query<BindingRow>(
    `select kind, namespace, name, uid, target_id, claim from operator_bindings
     where kind = $1 and namespace = $2 and name = $3`,
    [kind, namespace, name],
  );
  return rows[0] ? toBinding(rows[0]) : undefined;
}

/**
 * Who holds an exclusive claim among `kinds` (a domain, across SendingDomain and ClusterSendingDomain: one
 * claim, core/migrations/0125_cluster_sending_domains.sql), if anyone.
 */
export async function findClaimHolder(
  db: Queryable,
  kinds: readonly MailroomKind[],
  claim: string,
): Promise<Binding | undefined> {
  const { rows } = await db.query<BindingRow>(
    `select kind, namespace, name, uid, target_id, claim from operator_bindings
     where kind = any($1::text[]) and claim = $2`,
    [kinds, claim],
  );
  return rows[0] ? toBinding(rows[0]) : undefined;
}

/**
 * Records (or re-points) a resource's binding. With a claim, returns false instead of throwing when another
 * resource holds it, which is how a second declaration of the same domain is detected.
 */
export async function putBinding(db: Queryable, binding: Omit<Binding, "kind"> & { kind: MailroomKind }) {
  try {
    await db.query(
      `insert into operator_bindings (kind, namespace, name, uid, target_id, claim)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (kind, namespace, name) do update
         set uid = excluded.uid, target_id = excluded.target_id, claim = excluded.claim, updated_at = now()`,
      [binding.kind, binding.namespace, binding.name, binding.uid, binding.targetId, binding.claim],
    );
    return true;
  } catch (error) {
    if (isUniqueViolation(error) && binding.claim !== null) return false;
    throw error;
  }
}

/** Forgets a resource's binding (and releases its claim). */
export async function deleteBinding(
  db: Queryable,
  kind: MailroomKind,
  namespace: string,
  name: string,
): Promise<void> {
  await db.query(`delete from operator_bindings where kind = $1 and namespace = $2 and name = $3`, [
    kind,
    namespace,
    name,
  ]);
}
