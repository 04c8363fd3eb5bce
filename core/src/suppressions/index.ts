export {
  addSuppressions,
  deleteSuppression,
  getSuppression,
  listSuppressions,
  type Suppression,
  suppressedAmong,
} from "./store.ts";
