export { findUnstorableString, type UnstorableString } from "./storable.ts";
