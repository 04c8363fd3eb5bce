import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createWebhookSigner, decodeWebhookSecret, generateWebhookSecret, webhookBody } from "./sign.ts";

const event = {
  type: "email.delivered",
  createdAt: new Date("2030-01-02T03:04:05.678Z"),
  data: { emailId: "e1" },
};

describe("Standard Webhooks signing, checked by the reference library", () => {
  it("produces headers the standardwebhooks verifier accepts, and it returns the body", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(secret)).toHaveLength(32);
    const body = webhookBody(event);
    const headers = createWebhookSigner([secret]).sign("evt-1", new Date(), body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({
      type: "email.delivered",
      timestamp: "2030-01-02T03:04:05.678Z",
      data: { emailId: "e1" },
    });
  });

  it("matches the reference signature for the same id, time and body", () => {
    const secret = generateWebhookSecret();
    const at = new Date(1_614_265_330_000);
    const body = '{"test": 2432232314}';
    const ours = createWebhookSigner([secret]).sign("msg_p5jXN8AQM9LWM0D4loKWxJek", at, body);
    expect(ours["webhook-timestamp"]).toBe("1614265330");
    expect(ours["webhook-signature"]).toBe(
      new Webhook(secret).sign("msg_p5jXN8AQM9LWM0D4loKWxJek", at, body),
    );
  });

  it("is rejected when the body, id or timestamp is altered, or the secret differs", () => {
    const secret = generateWebhookSecret();
    const body = webhookBody(event);
    const headers = createWebhookSigner([secret]).sign("evt-2", new Date(), body);
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(body.replace("e1", "e2"), { ...headers })).toThrow(/No matching signature/);
    expect(() => verifier.verify(body, { ...headers, "webhook-id": "evt-3" })).toThrow(
      /No matching signature/,
    );
    const earlier = String(Number(headers["webhook-timestamp"]) - 1);
    expect(() => verifier.verify(body, { ...headers, "webhook-timestamp": earlier })).toThrow(
      /No matching signature/,
    );
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow(
      /No matching signature/,
    );
  });

  it("signs once per active secret during a rotation, each verifying on its own", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = webhookBody(event);
    const headers = createWebhookSigner([current, previous]).sign("evt-4", new Date(), body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(previous).verify(body, { ...headers })).not.toThrow();
  });

  it("refuses secrets without the whsec_ prefix and an empty signer", () => {
    expect(() => decodeWebhookSecret("c2VjcmV0")).toThrow(/whsec_/);
    expect(() => createWebhookSigner([])).toThrow(/at least one secret/);
  });
});
