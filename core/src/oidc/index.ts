export { providerMetadata } from "./provider.ts";
export { recheckPerson } from "./recheck.ts";
export { signInPerson } from "./sign-in.ts";
