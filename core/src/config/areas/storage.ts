import path from "node:path";
import { z } from "zod";
import { type AreaEnv, port } from "./kinds.ts";

/** Where state lives: the data directory and Postgres. */
export const variables = {
  MAILROOM_DATA_DIR: z.string().min(1).default(".mailroom"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  MAILROOM_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  MAILROOM_EMBEDDED_PG_PORT: port.default(54329),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    dataDir: path.resolve(e.MAILROOM_DATA_DIR),
    database: {
      url: e.DATABASE_URL,
      /** A read replica (or a `-ro` Service) for the email log and console reads, used when fresh (ADR 0032). */
      readUrl: e.DATABASE_READ_URL,
      poolSize: e.MAILROOM_DATABASE_POOL_SIZE,
      embeddedPort: e.MAILROOM_EMBEDDED_PG_PORT,
    },
  };
}
