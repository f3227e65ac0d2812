// The tar format of the archive: a POSIX ustar header per entry, a pax
// extended header before it when its name does not fit ustar, each entry's
// bytes padded to whole blocks, two zero blocks at the end.
//
// The headers are laid out exactly as tar-stream 3's pack stream lays them
// out, the encoder the archive was first written with, so that an archive of
// the same export is the same bytes whichever wrote it
// (test/bundle/tar.test.ts compares the two).

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

const BLOCK = 512;

/** Two zero blocks: a tar's end, and the source of every entry's padding. */
export const ZERO_BLOCKS = Buffer.alloc(2 * BLOCK);

/** The name a pax extended header entry carries: readers use the path inside it. */
const PAX_HEADER_NAME = 'PaxHeader';

const TYPE_FLAGS: Record<TarHeader['type'], string> = { file: '0', directory: '5', 'pax-header': 'x' };

/** An entry's header blocks: a pax header first for a name too long for ustar or not ASCII. */
export function headerBytes(header: TarHeader): Buffer {
  const ustar = ustarHeader(header);
  if (ustar) return ustar;
  const pax = paxRecord('path', header.name);
  return Buffer.concat([ustarHeader({ ...header, name: PAX_HEADER_NAME, type: 'pax-header', size: pax.length })!, pax, padding(pax.length), ustarHeader({ ...header, name: PAX_HEADER_NAME })!]);
}

/** The zero bytes that follow `size` bytes of an entry, to a whole block. */
export function padding(size: number): Buffer {
  return ZERO_BLOCKS.subarray(0, (BLOCK - (size % BLOCK)) % BLOCK);
}

/**
 * One ustar header block, or undefined when the name cannot be one: not
 * ASCII, or longer than the 100 bytes of the name field once its leading
 * folders (up to 155 bytes) are moved to the prefix field.
 */
function ustarHeader(header: TarHeader): Buffer | undefined {
  // A folder's name is written as given, with no '/' added: its type says it is one.
  let name = header.name;
  if (!/^[\x00-\x7f]*$/.test(name)) return undefined;
  let prefix = '';
  while (name.length > 100) {
    const slash = name.indexOf('/');
    if (slash === -1) return undefined;
    prefix += prefix ? `/${name.slice(0, slash)}` : name.slice(0, slash);
    name = name.slice(slash + 1);
  }
  if (prefix.length > 155) return undefined;
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 'ascii');
  block.write(octal(header.mode & 0o7777, 6), 100, 'ascii');
  block.write(octal(header.uid, 6), 108, 'ascii');
  block.write(octal(header.gid, 6), 116, 'ascii');
  writeSize(block, header.size, 124);
  // Whole seconds, as a 32-bit number, as tar-stream writes them.
  block.write(octal((header.mtime.getTime() / 1000) | 0, 11), 136, 'ascii');
  block.write(TYPE_FLAGS[header.type], 156, 'ascii');
  block.write('ustar\x0000', 257, 'ascii');
  block.write(header.uname, 265, 'utf8');
  block.write(header.gname, 297, 'utf8');
  block.write(octal(0, 6), 329, 'ascii');
  block.write(octal(0, 6), 337, 'ascii');
  block.write(prefix, 345, 'ascii');
  block.write(octal(checksum(block), 6), 148, 'ascii');
  return block;
}

/** `digits` octal digits, zero-padded, then a space; all sevens when the value needs more. */
function octal(value: number, digits: number): string {
  const text = value.toString(8);
  return `${text.length > digits ? '7'.repeat(digits) : text.padStart(digits, '0')} `;
}

/** The 12-byte size field: 11 octal digits and a space, or base-256 (a first byte 0x80) from 8 GiB. */
function writeSize(block: Buffer, size: number, at: number): void {
  if (size.toString(8).length <= 11) {
    block.write(octal(size, 11), at, 'ascii');
    return;
  }
  block[at] = 0x80;
  let rest = size;
  for (let index = 11; index > 0; index--) {
    block[at + index] = rest % 256;
    rest = Math.floor(rest / 256);
  }
}

/** The sum of the block's bytes with the checksum field counted as eight spaces. */
function checksum(block: Buffer): number {
  let sum = 8 * 0x20;
  for (let index = 0; index < 148; index++) sum += block[index]!;
  for (let index = 156; index < BLOCK; index++) sum += block[index]!;
  return sum;
}

/** One pax record, `LENGTH KEY=VALUE\n`, where LENGTH counts its own digits too. */
function paxRecord(key: string, value: string): Buffer {
  const rest = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(rest);
  let digits = String(bytes).length;
  if (bytes + digits >= 10 ** digits) digits++;
  return Buffer.from(`${bytes + digits}${rest}`);
}
