import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type ApiStack, startApiStack } from "../support/stack.ts";

/**
 * Issue 26, item 1: what Node refuses before a request exists (broken framing, headers over its limit) is
 * answered in the spec's `{error, message}` shape too, over the real TLS server.
 */

let db: TestDatabase;
let api: ApiStack;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

/** Writes raw bytes on a TLS connection and reads everything until the server closes it. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: "127.0.0.1",
      port: api.server.port,
      ca: api.ca,
      servername: "localhost",
    });
    const chunks: Buffer[] = [];
    socket.on("secureConnect", () => socket.write(bytes));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", (error) =>
      chunks.length > 0 ? resolve(Buffer.concat(chunks).toString()) : reject(error),
    );
    socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
  });
}

function parse(answer: string): { status: number; body: unknown } {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body: JSON.parse(body) };
}

describe("Node-level refusals answer in the spec's error shape", () => {
  it("headers larger than Node allows: 431 headers_too_large", async () => {
    const answer = parse(
      await rawExchange(
        `GET /v1/emails HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`,
      ),
    );
    expect(answer).toEqual({
      status: 431,
      body: { error: "headers_too_large", message: expect.any(String) },
    });
  });

  it.each([
    ["a broken request line", "GET /v1/emails HTTP/9\r\n\r\n"],
    [
      "a Content-Length that is not a number",
      "POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    ],
    ["a NUL in a header", "GET /v1/emails HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n"],
    [
      "both Content-Length and chunked",
      "POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
  ])("%s: 400 validation_error", async (_label, bytes) => {
    expect(parse(await rawExchange(bytes))).toEqual({
      status: 400,
      body: { error: "validation_error", message: expect.any(String) },
    });
  });
});
