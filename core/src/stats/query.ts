import { queryTime as time } from "../emails/filter.ts";
import { MailroomError } from "../errors/index.ts";

export const STATS_BUCKETS = ["hour", "day"] as const;
export const STATS_DIMENSIONS = ["domain", "category", "tag"] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];
export type StatsDimension = (typeof STATS_DIMENSIONS)[number];

/** `GET /v1/stats`'s parameters as a query string carries them. */
export interface StatsQueryInput {
  from?: string | undefined;
  to?: string | undefined;
  bucket?: string | undefined;
  by?: string | undefined;
}

/** A period of whole UTC buckets, and the split asked for. */
export interface StatsQuery {
  from: Date;
  to: Date;
  bucket: StatsBucket;
  by: StatsDimension | null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How far back a period reaches by default, and at most (a chart of at most ~750 or ~400 points). */
const SPAN: Record<StatsBucket, { default: number; max: number }> = {
  hour: { default: DAY, max: 31 * DAY },
  day: { default: 30 * DAY, max: 400 * DAY },
};

const invalid = (message: string) => new MailroomError("validation_error", message);

/** The start of the UTC bucket `at` falls in; with `up`, the start of the next one unless `at` is one. */
function align(at: Date, size: number, up: boolean): Date {
  const floor = Math.floor(at.getTime() / size) * size;
  return new Date(up && floor < at.getTime() ? floor + size : floor);
}

/**
 * The period and split `readStats` takes: `to` defaults to now, `from` to a day (hourly) or 30 days (daily)
 * before it; both widen to whole UTC buckets. Throws `validation_error` naming the field: an unknown bucket
 * or split, `from` not before `to`, or a period longer than 31 days hourly or 400 days daily.
 */
export function normalizeStatsQuery(input: StatsQueryInput, now: Date): StatsQuery {
  const bucket = input.bucket ?? "hour";
  if (!(STATS_BUCKETS as readonly string[]).includes(bucket)) {
    throw invalid(`bucket: one of ${STATS_BUCKETS.join(", ")}`);
  }
  if (input.by !== undefined && !(STATS_DIMENSIONS as readonly string[]).includes(input.by)) {
    throw invalid(`by: one of ${STATS_DIMENSIONS.join(", ")}`);
  }
  const span = SPAN[bucket as StatsBucket];
  const size = bucket === "hour" ? HOUR : DAY;
  const to = align(time("to", input.to) ?? now, size, true);
  const from = align(time("from", input.from) ?? new Date(to.getTime() - span.default), size, false);
  if (from.getTime() >= to.getTime()) throw invalid("from: a time before to");
  if (to.getTime() - from.getTime() > span.max) {
    throw invalid(`from: at most ${span.max / DAY} days before to with bucket=${bucket}`);
  }
  return { from, to, bucket: bucket as StatsBucket, by: (input.by as StatsDimension | undefined) ?? null };
}
