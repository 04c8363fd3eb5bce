import { describe, expect, it } from "vitest";
import { grantsOf, groupsFromClaim } from "./roles.ts";

describe("roles from groups", () => {
  const roles = [
    { group: "admins", account: "shop", scopes: ["send", "domains"] as const },
    { group: "support", account: "shop", scopes: ["send"] as const },
    { group: "support", account: "blog", scopes: ["templates"] as const },
  ].map((role) => ({ ...role, scopes: [...role.scopes] }));

  it("gives the union of a person's roles' scopes per account, accounts by name", () => {
    const grants = grantsOf(["support", "admins", "unrelated"], roles);
    expect([...grants]).toEqual([
      ["blog", ["templates"]],
      ["shop", ["domains", "send"]],
    ]);
  });

  it("gives nothing to a person none of whose groups has a role", () => {
    expect(grantsOf(["marketing"], roles).size).toBe(0);
    expect(grantsOf([], roles).size).toBe(0);
  });

  it("reads a groups claim that is a list, one string, or something else", () => {
    expect(groupsFromClaim(["a", 1, "b"])).toEqual(["a", "b"]);
    expect(groupsFromClaim("a")).toEqual(["a"]);
    expect(groupsFromClaim({ a: 1 })).toEqual([]);
    expect(groupsFromClaim(undefined)).toEqual([]);
  });
});
