import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS, judgeRates, thresholdsOf } from "./thresholds.ts";

describe("reputation thresholds (issue 31 item 2)", () => {
  const t = DEFAULT_THRESHOLDS;
  it("judges nothing under the minimum volume", () => {
    expect(judgeRates({ sent: 499, bounced: 499, complained: 0 }, t)).toBe("low_volume");
    expect(judgeRates({ sent: 0, bounced: 0, complained: 0 }, { ...t, minimumVolume: 0 })).toBe("low_volume");
  });
  it("warns at 2 % bounces or 0.1 % complaints and pauses at 5 % or 0.3 %, lines included", () => {
    expect(judgeRates({ sent: 1000, bounced: 19, complained: 0 }, t)).toBe("ok");
    expect(judgeRates({ sent: 1000, bounced: 20, complained: 0 }, t)).toBe("warn");
    expect(judgeRates({ sent: 1000, bounced: 50, complained: 0 }, t)).toBe("pause");
    expect(judgeRates({ sent: 1000, bounced: 0, complained: 1 }, t)).toBe("warn");
    expect(judgeRates({ sent: 1000, bounced: 0, complained: 2 }, t)).toBe("warn");
    expect(judgeRates({ sent: 1000, bounced: 0, complained: 3 }, t)).toBe("pause");
  });
  it("takes the policy's valid thresholds over the defaults and ignores the rest", () => {
    expect(thresholdsOf({ minimumVolume: 10, pauseComplaintRate: 0.01, warnBounceRate: -1, x: 1 })).toEqual({
      ...DEFAULT_THRESHOLDS,
      minimumVolume: 10,
      pauseComplaintRate: 0.01,
    });
    expect(thresholdsOf(null)).toEqual(DEFAULT_THRESHOLDS);
  });
});
