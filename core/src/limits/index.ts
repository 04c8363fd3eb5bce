export {
  hitRateLimit,
  purgeRateLimitCounters,
  type RateLimitPolicy,
  type RateLimitVerdict,
  rateLimitBuckets,
  verdictFrom,
  windowStart,
} from "./rate-limit.ts";
