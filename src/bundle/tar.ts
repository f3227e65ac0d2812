// The tar format of the archive: headers as tar-stream's pack lays them out,
// each entry's bytes padded to whole blocks, two zero blocks at the end.

import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

export interface TarHeader {
  readonly name: string;
  readonly type: 'file' | 'directory' | 'pax-header';
  readonly mode: number;
  readonly size: number;
  readonly mtime: Date;
  readonly uid: number;
  readonly gid: number;
  readonly uname: string;
  readonly gname: string;
}

/**
 * tar-stream's own header encoder, the one its pack stream used here before:
 * archives stay the bytes they were. The package exports only its streams,
 * whose per-file buffers and stream turns were most of the archive step
 * (frame-compressor.ts), so the file is loaded by its path; the version is pinned.
 */
const tarHeaders = require(path.join(path.dirname(require.resolve('tar-stream')), 'headers.js')) as {
  encode(header: TarHeader): Buffer | null;
  encodePax(options: { name: string }): Buffer;
};

/** Two zero blocks: a tar's end, and the source of every entry's padding. */
export const ZERO_BLOCKS = Buffer.alloc(1024);

/** An entry's header blocks: a pax header first for a name too long for ustar. */
export function headerBytes(header: TarHeader): Buffer {
  const encoded = tarHeaders.encode(header);
  if (encoded) return encoded;
  const pax = tarHeaders.encodePax({ name: header.name });
  return Buffer.concat([tarHeaders.encode({ ...header, name: 'PaxHeader', type: 'pax-header', size: pax.length })!, pax, padding(pax.length), tarHeaders.encode({ ...header, name: 'PaxHeader' })!]);
}

/** The zero bytes that follow `size` bytes of an entry, to a whole block. */
export function padding(size: number): Buffer {
  return ZERO_BLOCKS.subarray(0, (512 - (size % 512)) % 512);
}
