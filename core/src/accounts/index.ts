// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { resumeAccount } from "./pause.ts";
export { type AccountPolicySettings, applyAccountPolicy, getAccount } from "./policy.ts";
export {
  checkAccountPolicy,
  countAccountSends,
  purgeAccountSendCounters,
  readAccountUsage,
} from "./quota.ts";
export {
  type AccountColumns,
  type AccountRecord,
  accountColumns,
  toAccountRecord,
} from "./record.ts";
export { setAccountSandbox } from "./sandbox.ts";
export { describeAccount } from "./view.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { pauseAccount } from "./pause.ts";
