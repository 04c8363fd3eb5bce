import { z } from "zod";
import { parseCidrList } from "../../net/index.ts";

/** The parsed variables of one area's shape: what its `build` reads. */
export type AreaEnv<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

// The value kinds several areas share.
export const port = z.coerce.number().int().min(0).max(65535);
export const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
export const optionalPath = z.string().min(1).optional();
export const cidrList = z
  .string()
  .refine((v) => {
    try {
      parseCidrList(v);
      return true;
    } catch {
      return false;
    }
  }, "a comma-separated list of CIDRs, e.g. 10.0.0.0/8,fd00::/8")
  .optional();
