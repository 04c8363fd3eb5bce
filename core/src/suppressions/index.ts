// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { deleteSuppression, getSuppression, listSuppressions, suppressManually } from "./store.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { addSuppressions } from "./store.ts";
