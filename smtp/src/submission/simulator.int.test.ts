import { createKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { type SubmissionStack, startSubmissionStack } from "../../../test/support/submission.ts";

// The SMTP door applies the mailbox simulator's accept-time rules as the API does (ADR 0049): the email is
// marked simulated when every envelope recipient is a simulator address, and suppressed@ joins the list.
const SIM = "simulator.mailroom.invalid";

let db: TestDatabase;
let smtp: SubmissionStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSubmissionStack(db);
  key = (await createKey(db.pool, { account: "acme", scopes: ["send"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});

async function submit(envelopeTo: string[]): Promise<string> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: smtp.tlsPort,
    secure: true,
    tls: { ca: smtp.ca, servername: "localhost" },
    auth: { user: "app", pass: key },
  });
  const info = await transport.sendMail({
    from: "app@acme.test",
    to: envelopeTo[0],
    envelope: { from: "app@acme.test", to: envelopeTo },
    subject: "simulated",
    text: "Hello.",
  });
  transport.close();
  return String(info.response.split(" ").at(-1));
}

const emailOf = async (id: string) =>
  (await db.pool.query<{ simulated: boolean }>("select simulated from emails where id = $1", [id])).rows[0];

describe("simulator addresses over SMTP submission", () => {
  it("marks simulator-only mail simulated, and puts suppressed@ on the account's list", async () => {
    const id = await submit([`delivered@${SIM}`, `Suppressed+smtp@${SIM}`]);
    expect(await emailOf(id)).toEqual({ simulated: true });
    const { rows } = await db.pool.query(
      "select account, address, reason from suppressions where address like $1",
      [`%@${SIM}`],
    );
    expect(rows).toEqual([{ account: "acme", address: `suppressed+smtp@${SIM}`, reason: "manual" }]);
  });

  it("mail with one real recipient is real mail", async () => {
    const id = await submit([`delivered@${SIM}`, "you@example.test"]);
    expect(await emailOf(id)).toEqual({ simulated: false });
  });
});
