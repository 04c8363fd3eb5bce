import { describe, expect, it } from "vitest";
import { destinationOf } from "./destinations.ts";
import { isRateLimitReply } from "./signals.ts";

describe("rate-limit replies", () => {
  it.each([
    [421, "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume"],
    [421, "421 4.3.2 Service not available, closing transmission channel"],
    [451, "451 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP"],
    [451, "451-4.7.500 Server busy. Please try again later from [192.0.2.1]"],
    [450, "450 too many connections from your host, try again later"],
    [452, "452 Rate limit exceeded"],
  ])("%i %s slows the destination", (code, reply) => {
    expect(isRateLimitReply(code, reply)).toBe(true);
  });

  it.each([
    [451, "451 4.7.1 Greylisted, please try again later"],
    [450, "450 4.2.0 Recipient address rejected: Greylisting in action"],
    [452, "452 4.2.2 Mailbox full"],
    [451, "451 4.3.0 Temporary lookup failure"],
    [550, "550 5.7.1 Rate limited, go away"],
    [undefined, "connect ECONNREFUSED 127.0.0.3:25"],
  ])("%s %s does not", (code, reply) => {
    expect(isRateLimitReply(code, reply)).toBe(false);
  });
});

describe("destinations", () => {
  const limits = { concurrency: 5, messagesPerConnection: 100, ratePerMinute: 0 };
  const config = {
    defaults: limits,
    providers: [{ name: "gmail", mxSuffixes: ["google.com", "googlemail.com"], ...limits, concurrency: 10 }],
  };

  it("groups every MX host under a provider's suffixes, whatever the case or a trailing dot", () => {
    for (const host of [
      "gmail-smtp-in.l.google.com",
      "ASPMX.L.GOOGLE.COM.",
      "google.com",
      "alt1.googlemail.com",
    ]) {
      expect(destinationOf(host, config)).toMatchObject({ key: "group:gmail", label: "gmail" });
      expect(destinationOf(host, config).limits.concurrency).toBe(10);
    }
  });

  it("makes any other MX host a destination of its own, labelled other", () => {
    expect(destinationOf("mx.notgoogle.com", config)).toEqual({
      key: "host:mx.notgoogle.com",
      label: "other",
      limits,
    });
    expect(destinationOf("Mx.Example.org.", config).key).toBe("host:mx.example.org");
  });
});
