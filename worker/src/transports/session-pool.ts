import SMTPConnection, {
  type SMTPConnectionOptions,
  type SMTPConnectionSendInfo,
} from "nodemailer/lib/smtp-connection";
import { extensionsOf, type HopExtensions, planFor, withRefused } from "./next-hop.ts";
import { type PeerTls, peerTlsOf } from "./tls-policy/index.ts";
import type { OutboundMessage } from "./types.ts";

/** One address of one MX host. `hostname` is the MX name, used for SNI and in results. */
export interface SessionTarget {
  address: string;
  port: number;
  hostname: string;
  /** Messages on one session to this target before it is closed; the pool's `maxMessagesPerSession` if unset. */
  maxMessages?: number;
}

/** Settings shared by every session of a direct transport. */
export interface SessionPoolOptions {
  /** Sessions open at once per pool key, whether busy or idle, unless `acquire` is given a cap. */
  maxSessionsPerDomain: number;
  /** How to open a session to a target: host, port, TLS, EHLO name, timeouts. */
  connection: (target: SessionTarget) => SMTPConnectionOptions;
  /** Credentials to log in with once the session is open (a smarthost); none for MX hosts. */
  auth?: { user: string; pass: string };
  /** How long an idle session is kept for the next message to the same domain. */
  idleTimeoutMs: number;
  maxMessagesPerSession: number;
}

/** A session lent out for one transaction; `release` must be called exactly once. */
export interface SessionLease {
  /** What the session's TLS handshake established, for the destination's policy to judge (`tls-policy/`). */
  readonly tls: PeerTls;
  /** One transaction, in the form the session's EHLO allows (`next-hop.ts`). */
  send(envelope: { from: string; to: string[] }, message: OutboundMessage): Promise<SMTPConnectionSendInfo>;
  /** Returns the session for reuse, or closes it when the transaction went wrong. */
  release(reusable: boolean): void;
}

/** Pools of open SMTP sessions per key (a relay's domain, a direct destination) under a cap per key. */
export interface SessionPool {
  /**
   * Waits while the key (a relay's domain, a direct destination) is at its cap (`cap`, else the pool's);
   * rejects when the session cannot be opened.
   */
  acquire(domain: string, target: SessionTarget, cap?: number): Promise<SessionLease>;
  close(): Promise<void>;
}

interface Session {
  key: string;
  connection: SMTPConnection;
  /** What the server's EHLO offered (after STARTTLS, when there was one). */
  extensions: HopExtensions;
  tls: PeerTls;
  messages: number;
  maxMessages: number;
  closed: boolean;
  idleTimer?: NodeJS.Timeout;
}

interface DomainState {
  open: number;
  idle: Session[];
  waiters: Array<() => void>;
}

function targetKey(target: SessionTarget): string {
  return `${target.address}|${target.port}`;
}

/**
 * Sessions are pooled per key under a cap per key: the relay's one smarthost, or a direct destination (an MX
 * host, or a provider group of them, `shaping/`), so that the cap means what a receiver's limits mean: at
 * most N connections from us, however its MX hosts are spread. An idle session to another address of the
 * key is given up when a new target needs its slot.
 */
export function createSessionPool(options: SessionPoolOptions): SessionPool {
  const domains = new Map<string, DomainState>();
  let closed = false;

  const stateOf = (domain: string): DomainState => {
    let state = domains.get(domain);
    if (!state) {
      state = { open: 0, idle: [], waiters: [] };
      domains.set(domain, state);
    }
    return state;
  };

  const wakeOne = (state: DomainState) => state.waiters.shift()?.();

  const retire = (state: DomainState, session: Session, graceful: boolean) => {
    if (session.closed) return;
    session.closed = true;
    clearTimeout(session.idleTimer);
    const at = state.idle.indexOf(session);
    if (at >= 0) state.idle.splice(at, 1);
    state.open -= 1;
    if (graceful) session.connection.quit();
    else session.connection.close();
    wakeOne(state);
  };

  const open = (state: DomainState, target: SessionTarget): Promise<Session> =>
    new Promise((resolve, reject) => {
      const connection = new SMTPConnection({ ...options.connection(target), logger: false });
      const session: Session = {
        key: targetKey(target),
        connection,
        extensions: extensionsOf(false),
        tls: { secure: false, authorized: false },
        messages: 0,
        maxMessages: target.maxMessages ?? options.maxMessagesPerSession,
        closed: false,
      };
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        retire(state, session, false);
        reject(error);
      };
      // Errors after the handshake reach the send callback too; this listener only keeps the count right.
      connection.on("error", (error: Error) => (settled ? retire(state, session, false) : fail(error)));
      connection.on("end", () =>
        settled ? retire(state, session, false) : fail(new Error("connection closed before the greeting")),
      );
      const ready = () => {
        if (settled) return;
        settled = true;
        resolve(session);
      };
      connection.connect((error) => {
        if (error) return fail(error);
        // Right after connecting, the last reply is the EHLO's (the one after STARTTLS, when there was one).
        session.extensions = extensionsOf(connection.lastServerResponse);
        session.tls = peerTlsOf(connection);
        // As nodemailer's pool: log in only where the server offers AUTH.
        if (!options.auth || !connection.allowsAuth) return ready();
        connection.login(options.auth, (failed) => (failed ? fail(failed) : ready()));
      });
    });

  const lease = (state: DomainState, session: Session): SessionLease => ({
    tls: session.tls,
    async send(envelope, message) {
      const plan = await planFor(session.extensions, envelope, message);
      if (plan.to.length === 0) {
        const none = {
          accepted: [],
          rejected: [],
          response: "",
          envelopeTime: 0,
          messageTime: 0,
          messageSize: 0,
        };
        return withRefused(none, plan);
      }
      const info = await new Promise<SMTPConnectionSendInfo>((resolve, reject) => {
        session.connection.send(
          { from: envelope.from, to: plan.to, use8BitMime: plan.use8BitMime },
          plan.raw,
          (error, sent) => (error || !sent ? reject(error) : resolve(sent)),
        );
      });
      return withRefused(info, plan);
    },
    release(reusable) {
      session.messages += 1;
      if (!reusable || closed || session.closed || session.messages >= session.maxMessages) {
        retire(state, session, reusable);
        return;
      }
      session.idleTimer = setTimeout(() => retire(state, session, true), options.idleTimeoutMs);
      session.idleTimer.unref();
      state.idle.push(session);
      wakeOne(state);
    },
  });

  return {
    async acquire(domain, target, cap = options.maxSessionsPerDomain) {
      const state = stateOf(domain);
      const key = targetKey(target);
      let waited = false;
      for (;;) {
        if (closed) throw new Error("transport closed");
        const reusable = state.idle.find((s) => s.key === key);
        if (reusable) {
          clearTimeout(reusable.idleTimer);
          state.idle.splice(state.idle.indexOf(reusable), 1);
          return lease(state, reusable);
        }
        if (state.open < cap) break;
        const other = state.idle[0];
        if (other) {
          retire(state, other, true);
          break;
        }
        // A waiter that lost its turn to a newcomer goes back to the front of the queue, not the end.
        await new Promise<void>((resolve) =>
          waited ? state.waiters.unshift(resolve) : state.waiters.push(resolve),
        );
        waited = true;
      }
      state.open += 1;
      return lease(state, await open(state, target));
    },
    async close() {
      closed = true;
      for (const state of domains.values()) {
        for (const session of [...state.idle]) retire(state, session, true);
        for (const waiter of state.waiters.splice(0)) waiter();
      }
    },
  };
}
