import { type AddressInfo, createServer, connect as netConnect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a peer (an SMTP server) that can stall: every open connection stops forwarding in
 * both directions mid-conversation and new connections are accepted but not answered, as a peer that hangs
 * does; `resume` lets everything flow again where it stopped.
 */
export class StallProxy {
  port = 0;
  private server: Server | undefined;
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly held = new Set<Socket>();
  private stalled = false;
  private readonly upstreamPort: number;

  constructor(upstreamPort: number) {
    this.upstreamPort = upstreamPort;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      client.on("error", () => client.destroy());
      if (this.stalled) {
        client.pause();
        this.held.add(client);
        client.once("close", () => this.held.delete(client));
      } else this.connect(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    this.port = (server.address() as AddressInfo).port;
  }

  private connect(client: Socket): void {
    const upstream = netConnect(this.upstreamPort, "127.0.0.1");
    upstream.on("error", () => client.destroy());
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once("close", drop);
    upstream.once("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  resume(): void {
    this.stalled = false;
    for (const [client, upstream] of this.pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    for (const client of this.held) {
      this.held.delete(client);
      this.connect(client);
    }
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    for (const c of this.held) c.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
