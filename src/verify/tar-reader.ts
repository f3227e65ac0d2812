// Reads a tar stream as GNU tar extracts it, or stops with an error naming
// why, for the archives verify accepts: the tar `export --archive` writes,
// and `tar -c` of an export folder in GNU tar's default format or in
// `--format=posix`.
//
// Whatever GNU tar would apply, this applies the same way: a GNU long name
// (typeflag L) or long link name (K), a pax header (typeflag x) with the
// keywords path, size and linkpath, the ustar prefix only under the POSIX
// magic, a size in base 256, and the end of the archive at the first zero
// block. Whatever it would apply and this does not, or where reading on would
// need a guess, is refused: a global pax header (typeflag g), any other pax
// keyword, two extended headers of one kind for one entry, an entry type GNU
// tar treats in its own way (sparse, multi-volume, volume label, dumpdir),
// a file entry named with a trailing slash (GNU tar makes a folder of it), a
// folder or link that carries data, a header that is not ustar or GNU tar or
// whose checksum is wrong, a name that is not UTF-8, anything but zero bytes
// after the end-of-archive marker, and a stream that ends before it.
//
// Nothing is held but one header and, for an extended header, its records,
// which are bounded: an entry's data passes through in the pieces it arrives in.

/** What one entry is, as GNU tar would extract it. */
export interface TarEntry {
  readonly name: string;
  readonly type: 'file' | 'directory' | 'hard link' | 'symbolic link' | 'character device' | 'block device' | 'fifo' | 'contiguous file';
  readonly size: number;
  readonly linkname: string;
}

/** Takes an entry's bytes in order, then its end. */
export interface EntrySink {
  push(chunk: Buffer): void;
  end(): void;
}

/** Why the archive is not read further, with the entry it concerns when there is one. */
export class ArchiveReadError extends Error {
  constructor(
    readonly entry: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const BLOCK = 512;

/** The most an extended header (pax records, a long name) may hold: far past any path. */
const EXTENDED_HEADER_BYTES = 1 << 20;

/** The pax keywords GNU tar applies that change what is extracted where, and so are applied here too. */
const APPLIED_KEYWORDS = new Set(['path', 'size', 'linkpath']);
/** The pax keywords that change only times and owners, which verify does not look at. */
const IGNORED_KEYWORDS = new Set(['mtime', 'atime', 'ctime', 'uid', 'gid', 'uname', 'gname']);

const TYPES: Record<string, TarEntry['type']> = {
  '0': 'file',
  '\0': 'file',
  '1': 'hard link',
  '2': 'symbolic link',
  '3': 'character device',
  '4': 'block device',
  '5': 'directory',
  '6': 'fifo',
  '7': 'contiguous file',
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

interface Pending {
  path?: string;
  size?: number;
  linkpath?: string;
  longName?: string;
  longLink?: string;
  pax: boolean;
}

/**
 * A tar stream fed in pieces of any size. `entryOf` is told each entry at
 * its header and returns where its bytes go, or nothing to pass over them;
 * it, and the sink, may throw to stop the read.
 */
export class TarReader {
  private readonly header = Buffer.alloc(BLOCK);
  private filled = 0;
  /** Bytes of the stream consumed, for naming where a problem is. */
  private offset = 0;
  private state: 'header' | 'data' | 'padding' | 'extended' | 'end' = 'header';
  private remaining = 0;
  private sink: EntrySink | undefined;
  private current: string | undefined;
  private extended: { kind: string; bytes: Buffer; filled: number } | undefined;
  private pending: Pending = { pax: false };
  private entries = 0;

  constructor(private readonly entryOf: (entry: TarEntry) => EntrySink | undefined) {}

  push(chunk: Buffer): void {
    let cursor = 0;
    while (cursor < chunk.length) {
      const available = chunk.length - cursor;
      if (this.state === 'end') {
        for (let index = cursor; index < chunk.length; index++) {
          if (chunk[index] !== 0) throw new ArchiveReadError(undefined, `data after the end-of-archive marker, at byte ${this.offset + index - cursor}, which GNU tar does not extract`);
        }
        this.offset += available;
        return;
      }
      if (this.state === 'header') {
        const taken = Math.min(BLOCK - this.filled, available);
        chunk.copy(this.header, this.filled, cursor, cursor + taken);
        this.filled += taken;
        cursor += taken;
        this.offset += taken;
        if (this.filled === BLOCK) {
          this.filled = 0;
          this.onHeader();
        }
        continue;
      }
      const taken = Math.min(this.remaining, available);
      const piece = chunk.subarray(cursor, cursor + taken);
      cursor += taken;
      this.offset += taken;
      this.remaining -= taken;
      if (this.state === 'data') {
        if (taken > 0) this.sink?.push(piece);
        if (this.remaining === 0) this.afterData();
      } else if (this.state === 'extended') {
        piece.copy(this.extended!.bytes, this.extended!.filled);
        this.extended!.filled += taken;
        if (this.remaining === 0) this.afterExtended();
      } else if (this.remaining === 0) {
        this.state = 'header';
      }
    }
  }

  /** The stream has ended: it must have ended at the end-of-archive marker. */
  end(): void {
    if (this.state === 'end') return;
    if (this.state === 'data') throw new ArchiveReadError(this.current, `the archive ends inside this entry, ${this.remaining} of its bytes short; it is cut short`);
    if (this.state === 'padding') throw new ArchiveReadError(this.current, `the archive ends inside the padding after this entry; it is cut short`);
    if (this.filled > 0 || this.state !== 'header') throw new ArchiveReadError(undefined, `the archive ends inside a header, at byte ${this.offset}; it is cut short`);
    throw new ArchiveReadError(undefined, this.entries === 0 ? 'the archive holds no tar entries' : `the archive ends after ${this.entries} entries without the end-of-archive marker; it is cut short`);
  }

  private onHeader(): void {
    const block = this.header;
    const at = this.offset - BLOCK;
    if (block.every((byte) => byte === 0)) {
      if (this.pending.pax || this.pending.longName !== undefined || this.pending.longLink !== undefined) throw new ArchiveReadError(undefined, `an extended header at byte ${at} with no entry after it`);
      this.state = 'end';
      return;
    }
    checkChecksum(block, at);
    const magic = block.toString('latin1', 257, 265);
    const posix = magic === 'ustar\u000000';
    if (!posix && magic !== 'ustar  \u0000') throw new ArchiveReadError(undefined, `the header at byte ${at} is neither ustar nor GNU tar; it is not an archive verify reads`);
    let name = text(block, 0, 100, at);
    const prefix = posix ? text(block, 345, 155, at) : '';
    if (prefix !== '') name = `${prefix}/${name}`;
    const typeflag = String.fromCharCode(block[156]!);
    const size = number(block, 124, 12, at);
    if (typeflag === 'x' || typeflag === 'L' || typeflag === 'K') {
      this.startExtended(typeflag, size, name);
      return;
    }
    if (typeflag === 'g') throw new ArchiveReadError(name, 'a global pax header (typeflag g), which GNU tar applies to every entry after it; an export has none');
    const type = TYPES[typeflag];
    if (!type) throw new ArchiveReadError(name, `an entry of tar type ${JSON.stringify(typeflag)}, which GNU tar reads in its own way (sparse, multi-volume, volume label, dumpdir or other); an export has none`);
    const pending = this.pending;
    this.pending = { pax: false };
    name = pending.path ?? pending.longName ?? name;
    const entry: TarEntry = { name, type, size: pending.size ?? size, linkname: pending.linkpath ?? pending.longLink ?? text(block, 157, 100, at) };
    if (type === 'file' && name.endsWith('/')) throw new ArchiveReadError(name, 'a file entry whose name ends with a slash, which GNU tar makes a folder');
    if (type !== 'file' && type !== 'contiguous file' && entry.size !== 0) throw new ArchiveReadError(name, `a ${type} entry that carries ${entry.size} bytes of data`);
    this.entries++;
    this.current = name;
    this.sink = this.entryOf(entry);
    this.remaining = entry.size;
    this.state = 'data';
    if (this.remaining === 0) this.afterData();
  }

  private afterData(): void {
    this.sink?.end();
    this.sink = undefined;
    this.toPadding(this.offsetInBlock());
  }

  /** Where the stream stands inside its current block: the data just ended there. */
  private offsetInBlock(): number {
    return this.offset % BLOCK;
  }

  private toPadding(used: number): void {
    this.remaining = used === 0 ? 0 : BLOCK - used;
    this.state = this.remaining === 0 ? 'header' : 'padding';
    if (this.state === 'header') this.current = undefined;
  }

  private startExtended(kind: string, size: number, name: string): void {
    const what = kind === 'x' ? 'pax header' : kind === 'L' ? 'long name' : 'long link name';
    if ((kind === 'x' && this.pending.pax) || (kind === 'L' && this.pending.longName !== undefined) || (kind === 'K' && this.pending.longLink !== undefined)) {
      throw new ArchiveReadError(name, `a second ${what} for one entry`);
    }
    if (size > EXTENDED_HEADER_BYTES) throw new ArchiveReadError(name, `a ${what} of ${size} bytes, more than the ${EXTENDED_HEADER_BYTES} verify reads`);
    if (size === 0) throw new ArchiveReadError(name, `an empty ${what}`);
    this.extended = { kind, bytes: Buffer.alloc(size), filled: 0 };
    this.current = name;
    this.remaining = size;
    this.state = 'extended';
  }

  private afterExtended(): void {
    const { kind, bytes } = this.extended!;
    this.extended = undefined;
    const name = this.current!;
    if (kind === 'x') Object.assign(this.pending, paxRecords(bytes, name), { pax: true });
    else {
      const end = bytes.indexOf(0);
      const value = decode(end < 0 ? bytes : bytes.subarray(0, end), name, `a ${kind === 'L' ? 'long name' : 'long link name'}`);
      if (kind === 'L') this.pending.longName = value;
      else this.pending.longLink = value;
    }
    this.toPadding(this.offsetInBlock());
    this.current = undefined;
  }
}

function checkChecksum(block: Buffer, at: number): void {
  const stated = number(block, 148, 8, at);
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < BLOCK; index++) {
    const byte = index >= 148 && index < 156 ? 0x20 : block[index]!;
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stated !== unsigned && stated !== signed) throw new ArchiveReadError(undefined, `the header at byte ${at} has a wrong checksum (it states ${stated}, its bytes sum to ${unsigned}); it is damaged or not a tar header`);
}

/** A numeric field of the header at byte `at`, octal as GNU tar writes it (spaces and NULs around) or in base 256. */
function number(block: Buffer, start: number, length: number, at: number): number {
  const field = block.subarray(start, start + length);
  if (field[0]! & 0x80) {
    if (field[0] !== 0x80) throw new ArchiveReadError(undefined, `the header at byte ${at} holds a negative number`);
    let value = 0n;
    for (const byte of field.subarray(1)) value = (value << 8n) | BigInt(byte);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ArchiveReadError(undefined, `the header at byte ${at} holds a number too large to be true (${value})`);
    return Number(value);
  }
  const octal = /^[ \0]*([0-7]*)[ \0]*$/.exec(field.toString('latin1'));
  if (!octal) throw new ArchiveReadError(undefined, `the header at byte ${at} holds a number that is not octal (${JSON.stringify(field.toString('latin1'))}); it is damaged or not a tar header`);
  return octal[1] === '' ? 0 : parseInt(octal[1]!, 8);
}

/** A NUL-terminated text field of the header at byte `at`, which must be UTF-8. */
function text(block: Buffer, start: number, length: number, at: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return decode(end < 0 ? field : field.subarray(0, end), undefined, `the header at byte ${at}`);
}

function decode(bytes: Buffer, entry: string | undefined, where: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ArchiveReadError(entry, `${where} holds a name that is not UTF-8 (${JSON.stringify(bytes.toString('latin1'))}); an export's names are`);
  }
}

/** The records of a pax header, `<length> <keyword>=<value>\n` each; only the keywords GNU tar applies to where and what it extracts are kept. */
function paxRecords(bytes: Buffer, name: string): Partial<Pending> {
  const applied: Partial<Pending> = {};
  const seen = new Set<string>();
  let cursor = 0;
  while (cursor < bytes.length) {
    const space = bytes.indexOf(0x20, cursor);
    const length = space < 0 ? NaN : Number(bytes.toString('latin1', cursor, space));
    const record = Number.isSafeInteger(length) && length > 0 && cursor + length <= bytes.length ? bytes.subarray(space + 1, cursor + length) : undefined;
    if (!record || record[record.length - 1] !== 0x0a || !/^\d+$/.test(bytes.toString('latin1', cursor, space))) {
      throw new ArchiveReadError(name, `a pax header whose records are malformed at byte ${cursor}`);
    }
    const equals = record.indexOf(0x3d);
    if (equals <= 0) throw new ArchiveReadError(name, `a pax record without a keyword at byte ${cursor}`);
    const keyword = decode(record.subarray(0, equals), name, 'a pax header');
    const value = decode(record.subarray(equals + 1, record.length - 1), name, 'a pax header');
    cursor += length;
    if (seen.has(keyword)) throw new ArchiveReadError(name, `a pax header that gives ${keyword} twice`);
    seen.add(keyword);
    if (IGNORED_KEYWORDS.has(keyword)) continue;
    if (!APPLIED_KEYWORDS.has(keyword)) throw new ArchiveReadError(name, `a pax header with the keyword ${JSON.stringify(keyword)}, which verify does not apply; an export has none`);
    if (value === '') throw new ArchiveReadError(name, `a pax header with an empty ${keyword}`);
    if (keyword === 'size') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new ArchiveReadError(name, `a pax size that is not a whole number of bytes (${JSON.stringify(value)})`);
      applied.size = Number(value);
    } else if (keyword === 'path') applied.path = value;
    else applied.linkpath = value;
  }
  return applied;
}
