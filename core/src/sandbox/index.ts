export { capturesMail } from "./decide.ts";
export { captureMessage } from "./store.ts";
