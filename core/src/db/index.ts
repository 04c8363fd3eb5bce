export { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "./embedded.ts";
export { isUuid, newId } from "./ids.ts";
export { MIGRATIONS_DIR, migrate } from "./migrate.ts";
export { createPool, endPool, type Pool, type PoolClient, type Queryable, withTransaction } from "./pool.ts";
export { createReadRouter, type ReadRouter, type ReadTarget } from "./read-route.ts";
export { isDatabaseUnavailable } from "./unavailable.ts";
export { isUniqueViolation } from "./unique-violation.ts";
