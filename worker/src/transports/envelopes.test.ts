import { describe, expect, it } from "vitest";
import { type OutboundMessage, type RecipientResult, sendEachEnvelope } from "./types.ts";

const message = (to: string[]): OutboundMessage => ({
  envelope: { from: (recipient) => `bounce+${recipient.split("@")[0]}@b.test`, to },
  raw: Buffer.from("Subject: x\r\n\r\nx\r\n"),
  messageId: "<m@test>",
});

describe("sendEachEnvelope", () => {
  it("runs one transaction per envelope sender, in order", async () => {
    const seen: Array<{ from: string; to: string[] }> = [];
    const outcome = await sendEachEnvelope(
      message(["a@x.test", "b@x.test"]),
      ["a@x.test", "b@x.test"],
      async (e) => {
        seen.push(e);
        return {
          connected: true,
          results: e.to.map((recipient) => ({ recipient, status: "accepted", response: "250" })),
        };
      },
    );
    expect(seen).toEqual([
      { from: "bounce+a@b.test", to: ["a@x.test"] },
      { from: "bounce+b@b.test", to: ["b@x.test"] },
    ]);
    expect(outcome.connected).toBe(true);
  });

  it("gives the envelopes after an unreachable one its failure, without trying them", async () => {
    const to = ["a@x.test", "b@x.test", "c@x.test"];
    let calls = 0;
    const outcome = await sendEachEnvelope(message(to), to, async (e) => {
      calls++;
      const failed: RecipientResult[] = e.to.map((recipient) => ({
        recipient,
        status: "temporary",
        response: "connect ECONNREFUSED",
      }));
      return { connected: false, results: failed };
    });
    expect(calls).toBe(1);
    expect(outcome).toEqual({
      connected: false,
      results: to.map((recipient) => ({ recipient, status: "temporary", response: "connect ECONNREFUSED" })),
    });
  });
});
