import type { AccountPolicy } from "../../crds/index.ts";
import { accountOf, refOf } from "../kind-controller.ts";

/** What the paused step found, for Ready: why the account is paused, if it is. */
export interface PolicyState {
  paused?: string;
}

/** The `accounts.policy` value naming a resource: `namespace/name`. */
export const policyName = (resource: AccountPolicy) => `${accountOf(resource)}/${refOf(resource).name}`;
