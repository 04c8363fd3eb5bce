import { CHECK_NAMES } from "@mailroom/core/domains";
import { expect, it } from "vitest";
import { sendingDomainCrd } from "./sending-domain.ts";

it("lists in status.checks exactly the checks core evaluates", () => {
  const checks = sendingDomainCrd.status.properties?.checks as {
    items: { properties: { name: { enum: readonly string[] } } };
  };
  expect(checks.items.properties.name.enum).toEqual(CHECK_NAMES);
});
