import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, redactSecrets } from "./logger.ts";

const KEY = "mrk_AbCdEf012345_0123456789abcdefghijklmnopqrstuv";

describe("redactSecrets", () => {
  it("keeps a key's id and drops its secret wherever it appears", () => {
    expect(redactSecrets(`/v1/emails/${KEY}`)).toBe("/v1/emails/mrk_AbCdEf012345_[redacted]");
    expect(redactSecrets(`/v1/emails?api_key=${KEY}&limit=2`)).toBe(
      "/v1/emails?api_key=mrk_AbCdEf012345_[redacted]&limit=2",
    );
    expect(redactSecrets(`{"msg":"bad from ${KEY}"}`)).toBe(`{"msg":"bad from mrk_AbCdEf012345_[redacted]"}`);
  });

  it("redacts malformed and URL-encoded keys, webhook secrets and header credentials", () => {
    expect(redactSecrets("token=mrk_short&x=1")).toBe("token=mrk_[redacted]&x=1");
    expect(redactSecrets("/v1/emails/mrk%5FAbCdEf012345%5Fsecret")).toBe("/v1/emails/mrk_[redacted]");
    expect(redactSecrets("MRK_AbCdEf012345_SECRET")).toBe("mrk_[redacted]");
    expect(redactSecrets('"whsec_c2VjcmV0c2VjcmV0c2VjcmV0"')).toBe('"whsec_[redacted]"');
    expect(redactSecrets("authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x.y")).toBe(
      "authorization: Bearer [redacted]",
    );
    expect(redactSecrets("Basic dXNlcjpwYXNzd29yZA==")).toBe("Basic [redacted]");
  });

  it("leaves ordinary text alone", () => {
    const text =
      '{"level":30,"url":"/v1/emails?limit=20","msg":"missing Bearer token","keyId":"AbCdEf012345"}';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("createLogger", () => {
  it("redacts every line it writes, child loggers included", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: "info", name: "test", destination });
    logger.child({ program: "api" }).info({ url: `/v1/emails/${KEY}` }, "request completed");
    logger.error({ err: new Error(`invalid key ${KEY}`) }, "request errored");
    logger.info({ headers: { authorization: `Bearer ${KEY}` } }, "headers");
    const text = lines.join("");
    expect(lines).toHaveLength(3);
    expect(text).not.toContain("0123456789abcdefghijklmnopqrstuv");
    expect(text).toContain("/v1/emails/mrk_AbCdEf012345_[redacted]");
    expect(text).toContain("invalid key mrk_AbCdEf012345_[redacted]");
  });

  it("logs an error without the database client node-postgres attaches to it", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const error = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
      client: { connectionParameters: { database: "mailroom" }, parsedStatements: { get_job: "select" } },
    });
    createLogger({ level: "info", name: "test", destination }).warn({ err: error }, "idle client error");
    const line = JSON.parse(lines[0] ?? "{}");
    expect(line.err).toMatchObject({ type: "Error", code: "57P01", message: error.message });
    expect(line.err.stack).toContain("terminating connection");
    expect(line.err).not.toHaveProperty("client");
  });
});
