import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";

describe("shaping config", () => {
  it("groups Gmail, Microsoft, Yahoo and Apple by default, each limit filled from the defaults", () => {
    const { shaping } = loadConfig({ MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN: "3" });
    expect(shaping.defaults).toEqual({ concurrency: 3, messagesPerConnection: 100, ratePerMinute: 0 });
    expect(shaping.providers.map((p) => [p.name, p.mxSuffixes])).toEqual([
      ["gmail", ["google.com", "googlemail.com"]],
      ["microsoft", ["protection.outlook.com"]],
      ["yahoo", ["yahoodns.net"]],
      ["apple", ["icloud.com"]],
    ]);
    expect(shaping.providers.find((p) => p.name === "yahoo")).toMatchObject({
      concurrency: 5,
      messagesPerConnection: 20,
      ratePerMinute: 0,
    });
    expect(shaping).toMatchObject({ backoffSeconds: 30, backoffMaxSeconds: 900, maxWaitSeconds: 10 });
  });

  it("replaces the groups with MAILROOM_SHAPING_PROVIDERS, suffixes given as *.name or name", () => {
    const providers = JSON.stringify([
      { name: "corp", mxSuffixes: ["*.Mail.Corp.example"], ratePerMinute: 120 },
    ]);
    const { shaping } = loadConfig({ MAILROOM_SHAPING_PROVIDERS: providers });
    expect(shaping.providers).toEqual([
      {
        name: "corp",
        mxSuffixes: ["mail.corp.example"],
        concurrency: 5,
        messagesPerConnection: 100,
        ratePerMinute: 120,
      },
    ]);
  });

  it.each([
    ["not json", /MAILROOM_SHAPING_PROVIDERS.*JSON/],
    ['[{"name":"other","mxSuffixes":["x.example"]}]', /MAILROOM_SHAPING_PROVIDERS.*other/],
    ['[{"name":"a","mxSuffixes":[]}]', /MAILROOM_SHAPING_PROVIDERS/],
    ['[{"name":"a","mxSuffixes":["bad suffix"]}]', /MAILROOM_SHAPING_PROVIDERS.*suffix/],
    ['[{"name":"a","mxSuffixes":["a.example"],"concurrency":0}]', /MAILROOM_SHAPING_PROVIDERS/],
    ['[{"name":"a","mxSuffixes":["a.example"],"burst":3}]', /MAILROOM_SHAPING_PROVIDERS/],
    ['[{"name":"a","mxSuffixes":["a.example"]},{"name":"a","mxSuffixes":["b.example"]}]', /each name once/],
  ])("refuses MAILROOM_SHAPING_PROVIDERS=%s with a message naming it", (value, says) => {
    expect(() => loadConfig({ MAILROOM_SHAPING_PROVIDERS: value })).toThrow(says);
  });

  it("never lets the longest pause be shorter than the first", () => {
    const { shaping } = loadConfig({
      MAILROOM_SHAPING_BACKOFF_SECONDS: "120",
      MAILROOM_SHAPING_BACKOFF_MAX_SECONDS: "60",
    });
    expect(shaping.backoffMaxSeconds).toBe(120);
  });
});
