// The parts of mailsplit's splitter the 7-bit conversion uses (mailsplit ships no types; its Headers are
// declared in core/src/emails/mime-modules.d.ts).
declare module "mailsplit" {
  import type { Transform } from "node:stream";

  /** One MIME node's header block, as the splitter parsed it. */
  export interface SplitNode {
    type: "node";
    /** Lower-case Content-Type value, e.g. `text/plain`; false when absent. */
    contentType: string | false;
    /** Lower-case Content-Transfer-Encoding; '' when absent. */
    encoding: string;
    multipart: string | false;
    headers: Headers;
    getHeaders(): Buffer;
  }

  export type SplitChunk = SplitNode | { type: "data" | "body"; node: SplitNode; value: Buffer };

  /** A stream of a message's bytes in, its nodes, bodies and multipart framing out, in order. */
  export class Splitter extends Transform {
    constructor(options?: { ignoreEmbedded?: boolean });
  }

  export interface Headers {
    /** Every line, folding kept, as `{ key, line }`: the key lower-cased, the line as latin1 bytes. */
    getList(): Array<{ key: string; line: string }>;
  }
}
