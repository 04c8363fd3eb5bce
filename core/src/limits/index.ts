export {
  hitRateLimit,
  purgeRateLimitCounters,
  type RateLimitPolicy,
  type RateLimitQuota,
  type RateLimitVerdict,
  rateLimitBuckets,
  verdictFrom,
  windowStart,
} from "./rate-limit.ts";
