export {
  type AccountColumns,
  type AccountRecord,
  accountColumns,
  toAccountRecord,
} from "./record.ts";
export { setAccountSandbox } from "./sandbox.ts";
