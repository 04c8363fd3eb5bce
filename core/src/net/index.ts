export {
  type AddressPolicy,
  CLOUD_METADATA_ADDRESSES,
  createAddressPolicy,
  parseCidr,
  parseCidrList,
} from "./addresses.ts";
