import { describe, expect, it } from "vitest";
import { whileDatabaseAway } from "./unavailable.ts";

const away = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

describe("whileDatabaseAway (core's one reading of 'database unavailable')", () => {
  it("tries a statement again while the database is away, and returns its answer once it is back", async () => {
    let calls = 0;
    const answer = await whileDatabaseAway(
      async () => {
        calls += 1;
        if (calls < 3) throw away;
        return "claimed";
      },
      { retryMs: 1 },
    );
    expect({ answer, calls }).toEqual({ answer: "claimed", calls: 3 });
  });

  it("throws at once an error that is not the database being away", async () => {
    let calls = 0;
    const wrong = Object.assign(new Error("syntax error"), { code: "42601" });
    await expect(
      whileDatabaseAway(async () => {
        calls += 1;
        throw wrong;
      }),
    ).rejects.toBe(wrong);
    expect(calls).toBe(1);
  });

  it("gives up past its patience with the last error", async () => {
    let calls = 0;
    await expect(
      whileDatabaseAway(
        async () => {
          calls += 1;
          throw away;
        },
        { patienceMs: -1, retryMs: 1 },
      ),
    ).rejects.toBe(away);
    expect(calls).toBe(1);
  });
});
