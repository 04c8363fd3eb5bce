export {
  addSuppressions,
  deleteSuppression,
  getSuppression,
  listSuppressions,
  type Suppression,
  suppressManually,
} from "./store.ts";
