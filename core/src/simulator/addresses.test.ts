import { describe, expect, it } from "vitest";
import { isSimulatedMail, simulatorMailboxOf } from "./addresses.ts";
import { simulatorRetryPolicy } from "./retry.ts";

const SIM = "simulator.mailroom.invalid";

describe("simulator addresses", () => {
  it("names the mailbox, with or without a +label, in any case", () => {
    expect(simulatorMailboxOf(`bounced@${SIM}`, SIM)).toBe("bounced");
    expect(simulatorMailboxOf(`Soft-Bounced+run-42@${SIM.toUpperCase()}`, SIM)).toBe("soft-bounced");
    expect(simulatorMailboxOf(`out-of-office+x+y@${SIM}`, SIM)).toBe("out-of-office");
    expect(simulatorMailboxOf(`bouncedx@${SIM}`, SIM)).toBe("unknown");
    expect(simulatorMailboxOf(`bounced@sub.${SIM}`, SIM)).toBeUndefined();
    expect(simulatorMailboxOf("bounced@example.com", SIM)).toBeUndefined();
    expect(simulatorMailboxOf(`bounced@${SIM}`, undefined)).toBeUndefined();
  });

  it("marks mail simulated only when every recipient is a simulator address", () => {
    expect(isSimulatedMail([`delivered@${SIM}`, `bounced@${SIM}`], SIM)).toBe(true);
    expect(isSimulatedMail([`delivered@${SIM}`, "real@example.com"], SIM)).toBe(false);
    expect(isSimulatedMail([], SIM)).toBe(false);
    expect(isSimulatedMail([`delivered@${SIM}`], undefined)).toBe(false);
  });

  it("shortens the retry only when every pending recipient is a simulator address", () => {
    const policy = { baseDelaySeconds: 60, maxDelaySeconds: 14_400, horizonSeconds: 259_200 };
    const simulator = { domain: SIM, retrySeconds: 0.5 };
    const soft = { recipient: `soft-bounced@${SIM}`, status: "temporary" as const, response: "451" };
    const real = { recipient: "busy@example.com", status: "temporary" as const, response: "451" };
    const accepted = { recipient: "ok@example.com", status: "accepted" as const, response: "250" };
    expect(simulatorRetryPolicy(policy, [soft, accepted], simulator)).toMatchObject({
      baseDelaySeconds: 0.5,
      maxDelaySeconds: 0.5,
      horizonSeconds: 259_200,
    });
    expect(simulatorRetryPolicy(policy, [soft, real], simulator)).toBe(policy);
    expect(simulatorRetryPolicy(policy, [accepted], simulator)).toBe(policy);
  });
});
