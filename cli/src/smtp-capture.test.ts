import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSmtpCapture } from "./smtp-capture.ts";

let busy: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("SMTP capture", () => {
  it("fails with EADDRINUSE on a taken port, as the other listeners do", async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy?.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as { port: number };
    dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-capture-"));
    await expect(
      startSmtpCapture({
        host: "127.0.0.1",
        port,
        inboxDir: path.join(dir, "inbox"),
        ownerOf: async () => undefined,
      }),
    ).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});
