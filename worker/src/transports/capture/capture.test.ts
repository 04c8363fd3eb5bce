import type { Pool } from "@mailroom/core/db";
import { describe, expect, it } from "vitest";
import { createCaptureTransport } from "./index.ts";

/** A pool whose rules query fails and whose capture insert succeeds, counting the inserts. */
function poolFailingRules() {
  const inserts: unknown[] = [];
  const pool = {
    async query(sql: string, params: unknown[]) {
      if (sql.includes("sandbox_chaos_rules")) throw new Error("connection terminated");
      inserts.push(params);
      return { rows: [], rowCount: 1 };
    },
  } as unknown as Pool;
  return { pool, inserts };
}

describe("the capture transport", () => {
  it("answers every recipient temporary when the chaos rules cannot be read, and captures nothing", async () => {
    const { pool, inserts } = poolFailingRules();
    const transport = createCaptureTransport(pool).for({ id: "e1", account: "shop", subject: "s" });
    const results = await transport.send({
      envelope: { from: () => "b@bounce.test", to: ["a@x.test", "b@x.test"] },
      raw: Buffer.from("Subject: s\r\n\r\nhi\r\n"),
      messageId: "<e1@test>",
      eightBit: { headers: false, body: false },
    });
    expect(results).toEqual([
      {
        recipient: "a@x.test",
        status: "temporary",
        response: "chaos rules unavailable: connection terminated",
      },
      {
        recipient: "b@x.test",
        status: "temporary",
        response: "chaos rules unavailable: connection terminated",
      },
    ]);
    expect(inserts).toEqual([]);
  });
});
