import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls, type TLSSocket } from "node:tls";

/** One reply of the server: its code and its text lines (the code and separator stripped). */
export interface SmtpReply {
  code: number;
  lines: string[];
  /** The whole reply as sent, e.g. `535 5.7.8 Authentication credentials invalid`. */
  text: string;
}

/**
 * A deliberately low-level SMTP client for tests that must say what a library never would: bare LFs, NULs,
 * pipelined bursts, commands before STARTTLS, a DATA that never ends. Replies are queued as they arrive.
 */
export class RawSmtpClient {
  private socket: Socket | TLSSocket;
  private buffer = "";
  private replies: SmtpReply[] = [];
  private waiting: Array<() => void> = [];
  private pending: string[] = [];
  closed = false;

  private constructor(socket: Socket | TLSSocket) {
    this.socket = socket;
    this.attach(socket);
  }

  /** Connects in plain text (587-style) or with implicit TLS (465-style); resolves after the greeting. */
  static async open(port: number, options: { tls?: boolean; ca?: Buffer } = {}): Promise<RawSmtpClient> {
    const socket = options.tls
      ? connectTls({ host: "127.0.0.1", port, ca: options.ca, servername: "localhost" })
      : connectTcp({ host: "127.0.0.1", port });
    const client = new RawSmtpClient(socket);
    const greeting = await client.read();
    if (greeting.code !== 220) throw new Error(`no greeting: ${greeting.text}`);
    return client;
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.on("data", (chunk: Buffer) => this.receive(chunk.toString("latin1")));
    socket.on("close", () => {
      this.closed = true;
      for (const wake of this.waiting.splice(0)) wake();
    });
    socket.on("error", () => {});
  }

  private receive(data: string): void {
    this.buffer += data;
    for (;;) {
      const end = this.buffer.indexOf("\r\n");
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.pending.push(line);
      if (line[3] !== "-") {
        this.replies.push({
          code: Number(line.slice(0, 3)),
          lines: this.pending.map((l) => l.slice(4)),
          text: line,
        });
        this.pending = [];
      }
    }
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** The next reply; rejects when the connection closed before one came, or after `timeoutMs`. */
  async read(timeoutMs = 20_000): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.replies.shift();
      if (reply) return reply;
      if (this.closed) throw new Error("connection closed");
      if (Date.now() > deadline) throw new Error("no reply in time");
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** Writes bytes as they are (no line ending added). */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Sends one command line and reads its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.write(`${line}\r\n`);
    return this.read();
  }

  /** EHLO, then STARTTLS and EHLO again over TLS. */
  async startTls(ca: Buffer): Promise<void> {
    await this.command("EHLO client.test");
    const ready = await this.command("STARTTLS");
    if (ready.code !== 220) throw new Error(`STARTTLS refused: ${ready.text}`);
    const plain = this.socket;
    plain.removeAllListeners("data");
    const secure = connectTls({ socket: plain, ca, servername: "localhost" });
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", () => resolve());
      secure.once("error", reject);
    });
    this.socket = secure;
    this.attach(secure);
    await this.command("EHLO client.test");
  }

  /** AUTH PLAIN with any username and the key as the password. */
  auth(password: string, username = "anyone"): Promise<SmtpReply> {
    return this.command(`AUTH PLAIN ${Buffer.from(`\0${username}\0${password}`).toString("base64")}`);
  }

  /** Resolves once the server closed the connection. */
  async waitClosed(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("still open");
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
