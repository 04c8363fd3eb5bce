export { providerMetadata } from "./provider.ts";
export { signInPerson } from "./sign-in.ts";
