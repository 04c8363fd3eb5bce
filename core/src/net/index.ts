export {
  type AddressPolicy,
  createAddressPolicy,
  parseCidr,
  parseCidrList,
} from "./addresses.ts";
