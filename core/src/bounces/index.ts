export { deriveVerpKey, readVerpAddress, type VerpKey, verpAddress, verpLocalPart } from "./verp.ts";
