// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { createAddressPolicy, parseCidrList } from "./addresses.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { CLOUD_METADATA_ADDRESSES, parseCidr } from "./addresses.ts";
