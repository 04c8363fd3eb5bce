export {
  addSuppressions,
  deleteSuppression,
  getSuppression,
  listSuppressions,
  type Suppression,
} from "./store.ts";
