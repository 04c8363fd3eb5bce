// mailsplit and libmime ship no types: the parts Mailroom uses.
declare module "mailsplit" {
  /** A message's header block: parsed on first use, edited in place, rebuilt with CRLF line ends. */
  export class Headers {
    constructor(headers: Buffer | string);
    /** The raw lines (folding kept) of every header with this name, in order. */
    get(key: string): string[];
    /** The first header's value, unfolded, encoded-words left as they are; '' when absent. */
    getFirst(key: string): string;
    remove(key: string): void;
    build(): Buffer;
  }
}

declare module "libmime" {
  const libmime: {
    /** Decodes RFC 2047 encoded-words (`=?utf-8?q?...?=`). */
    decodeWords(value: string): string;
  };
  export default libmime;
}
