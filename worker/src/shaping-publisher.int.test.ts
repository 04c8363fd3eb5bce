import { loadConfig } from "@mailroom/core/config";
import { createLogger } from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { until } from "../../test/support/wait.ts";
import { startShapingPublisher } from "./shaping-publisher.ts";
import { createShaper } from "./transports/shaping/index.ts";
import type { RecipientResult } from "./transports/types.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const published = async () =>
  (
    await db.pool.query<{
      destination: string;
      level: number;
      concurrency: number;
      last_reply: string;
      paused: boolean;
    }>(
      `select destination, level, concurrency, last_reply, paused_until > now() as paused
       from destination_shaping order by destination`,
    )
  ).rows;

describe("the worker's shaping publisher", () => {
  it("publishes a destination's backoff at once, its state on each beat, and clears it on stop", async () => {
    const { shaping } = loadConfig({});
    const shaper = createShaper({
      ...shaping,
      providers: [
        {
          name: "bigmail",
          mxSuffixes: ["bigmail.test"],
          concurrency: 8,
          messagesPerConnection: 10,
          ratePerMinute: 0,
        },
      ],
    });
    // A beat an hour apart: only a change (or an explicit publish) can write within this test.
    const publisher = startShapingPublisher(
      db.pool,
      createLogger({ level: "silent", name: "test" }),
      shaper,
      {
        intervalMs: 3_600_000,
      },
    );
    const transaction = (results: RecipientResult[], mx = "mx1.bigmail.test") =>
      shaper.run(
        mx,
        results.map((r) => r.recipient),
        async () => ({ results }),
        (untried) => ({ results: untried }),
      );
    await transaction([{ recipient: "a@x.test", status: "accepted", code: 250, response: "250 ok" }]);
    await transaction(
      [{ recipient: "b@steady.test", status: "accepted", code: 250, response: "250 ok" }],
      "mx.steady.test",
    );
    expect(await published()).toEqual([]);

    await transaction([
      { recipient: "c@x.test", status: "temporary", code: 421, response: "421 4.7.28 slow down" },
    ]);
    // The whole snapshot, the backoff with it.
    const rows = await until(published, (r) => r.length > 0, 10_000);
    expect(rows).toEqual([
      {
        destination: "group:bigmail",
        level: 0.5,
        concurrency: 4,
        last_reply: "421 4.7.28 slow down",
        paused: true,
      },
      { destination: "host:mx.steady.test", level: 1, concurrency: 5, last_reply: "", paused: null },
    ]);
    // A beat (here: asked for) writes what changed since without a backoff: a new destination.
    await transaction(
      [{ recipient: "e@third.test", status: "accepted", code: 250, response: "250 ok" }],
      "mx.third.test",
    );
    expect(await published()).toHaveLength(2);
    await publisher.publish();
    expect((await published()).map((r) => r.destination)).toEqual([
      "group:bigmail",
      "host:mx.steady.test",
      "host:mx.third.test",
    ]);
    await publisher.stop();
    expect(await published()).toEqual([]);
  });
});
