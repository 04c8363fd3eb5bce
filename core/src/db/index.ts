export { startEmbeddedPostgres } from "./embedded.ts";
export { isUuid } from "./ids.ts";
export { migrate } from "./migrate.ts";
export { createPool, endPool, type Pool, type Queryable, withTransaction } from "./pool.ts";
export { createReadRouter, type ReadRouter } from "./read-route.ts";
export { isDatabaseUnavailable, whileDatabaseAway } from "./unavailable.ts";
export { isUniqueViolation } from "./unique-violation.ts";
