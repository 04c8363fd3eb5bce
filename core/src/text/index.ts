export { findUnstorableString } from "./storable.ts";
