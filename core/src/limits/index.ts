export {
  purgeRateLimitCounters,
  type RateLimitVerdict,
} from "./rate-limit.ts";
