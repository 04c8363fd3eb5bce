export {
  hitRateLimit,
  purgeRateLimitCounters,
  type RateLimitPolicy,
  type RateLimitVerdict,
} from "./rate-limit.ts";
