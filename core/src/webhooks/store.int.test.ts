import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { createSsrfGuard } from "./ssrf.ts";
import { createEndpoint, disableEndpoint, updateEndpoint } from "./store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const ssrf = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] });
async function endpointOfNewAccount() {
  const account = `a-${randomBytes(4).toString("hex")}`;
  const { endpoint } = await createEndpoint(db.pool, { account, url: "http://127.0.0.1:9/hook" }, { ssrf });
  return { account, id: endpoint.id };
}
const row = async (id: string) =>
  (
    await db.pool.query<{ enabled: boolean; disabled_reason: string | null; failing: boolean }>(
      `select enabled, disabled_reason, failing_since is not null as failing from webhook_endpoints where id = $1`,
      [id],
    )
  ).rows[0];

describe("updateEndpoint's enable", () => {
  it("with keepAutoDisabled, leaves an endpoint Mailroom disabled meanwhile disabled (a resync racing the 410)", async () => {
    const { account, id } = await endpointOfNewAccount();
    // The caller read the endpoint enabled; Mailroom disables it before the caller's update.
    await disableEndpoint(db.pool, id, "the receiver answered 410 Gone");
    await updateEndpoint(db.pool, account, id, { enabled: true, keepAutoDisabled: true }, { ssrf });
    expect(await row(id)).toEqual({
      enabled: false,
      disabled_reason: "the receiver answered 410 Gone",
      failing: false,
    });
    // A spec change enables it for real.
    await updateEndpoint(db.pool, account, id, { enabled: true }, { ssrf });
    expect(await row(id)).toEqual({ enabled: true, disabled_reason: null, failing: false });
  });

  it("with keepAutoDisabled, still enables an endpoint disabled by request", async () => {
    const { account, id } = await endpointOfNewAccount();
    await updateEndpoint(db.pool, account, id, { enabled: false }, { ssrf });
    await updateEndpoint(db.pool, account, id, { enabled: true, keepAutoDisabled: true }, { ssrf });
    expect(await row(id)).toEqual({ enabled: true, disabled_reason: null, failing: false });
  });

  it("keeps the failure streak of an endpoint that is already enabled, and clears it when enabling a disabled one", async () => {
    const { account, id } = await endpointOfNewAccount();
    await db.pool.query(
      `update webhook_endpoints set failing_since = now() - interval '2 days' where id = $1`,
      [id],
    );
    await updateEndpoint(db.pool, account, id, { enabled: true, keepAutoDisabled: true }, { ssrf });
    expect(await row(id)).toEqual({ enabled: true, disabled_reason: null, failing: true });
    await disableEndpoint(db.pool, id, "failing for 3 days");
    await updateEndpoint(db.pool, account, id, { enabled: true }, { ssrf });
    expect(await row(id)).toEqual({ enabled: true, disabled_reason: null, failing: false });
  });
});
