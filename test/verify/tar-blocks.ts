// Tar blocks laid out by hand, for archives no well-behaved writer makes:
// headers with any typeflag, magic, size field or checksum, pax records, and
// a real export's entries to carry them among.

import fs from 'node:fs';
import path from 'node:path';

export const BLOCK = 512;
/** Two zero blocks: the end-of-archive marker. */
export const END = Buffer.alloc(2 * BLOCK);

export interface HeaderFields {
  readonly name: string | Buffer;
  readonly size?: number;
  /** The typeflag character: '0' a file, '5' a folder, 'x' a pax header, 'g' a global one, 'L' a GNU long name… */
  readonly typeflag?: string;
  readonly linkname?: string;
  readonly prefix?: string;
  /** ustar (POSIX, the default), GNU's, or none (version 7 tar). */
  readonly magic?: 'ustar' | 'gnu' | 'v7';
  /** The size field's 12 bytes as given, for sizes in base 256. */
  readonly sizeField?: Buffer;
  /** Added to the checksum written, to make it wrong. */
  readonly checksumOffBy?: number;
}

function put(block: Buffer, offset: number, length: number, value: string | Buffer): void {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (bytes.length > length) throw new Error(`tar field of ${length} bytes cannot hold ${bytes.length}`);
  bytes.copy(block, offset);
}

const octal = (value: number, length: number): string => `${value.toString(8).padStart(length - 1, '0')}\0`;

export function header(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  put(block, 0, 100, fields.name);
  put(block, 100, 8, octal(fields.typeflag === '5' ? 0o755 : 0o644, 8));
  put(block, 108, 8, octal(0, 8));
  put(block, 116, 8, octal(0, 8));
  put(block, 124, 12, fields.sizeField ?? octal(fields.size ?? 0, 12));
  put(block, 136, 12, octal(1_700_000_000, 12));
  put(block, 148, 8, '        ');
  put(block, 156, 1, fields.typeflag ?? '0');
  put(block, 157, 100, fields.linkname ?? '');
  const magic = fields.magic ?? 'ustar';
  if (magic === 'ustar') put(block, 257, 8, 'ustar\u000000');
  if (magic === 'gnu') put(block, 257, 8, 'ustar  \u0000');
  put(block, 345, 155, fields.prefix ?? '');
  let sum = 0;
  for (const byte of block) sum += byte;
  put(block, 148, 8, `${(sum + (fields.checksumOffBy ?? 0)).toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** Zero bytes to a whole block after `length` bytes. */
export function padding(length: number): Buffer {
  return Buffer.alloc((BLOCK - (length % BLOCK)) % BLOCK);
}

/** A header and its data, padded. */
export function entry(fields: HeaderFields, data: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([header({ size: data.length, ...fields }), data, padding(data.length)]);
}

/** pax records, `<length> <keyword>=<value>\n` each. */
export function paxRecords(records: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(
    records.map(([keyword, value]) => {
      const body = ` ${keyword}=${value}\n`;
      let length = Buffer.byteLength(body);
      while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
      return Buffer.from(`${length}${body}`);
    }),
  );
}

/** A pax header of typeflag `x` (or `g`) with `records`, as one entry. */
export function pax(records: readonly (readonly [string, string])[], typeflag: 'x' | 'g' = 'x'): Buffer {
  return entry({ name: 'PaxHeader', typeflag }, paxRecords(records));
}

/** A name as ustar holds it: past 100 bytes, cut at a slash into a prefix and a name. */
export function ustarName(name: string): { name: string; prefix?: string } {
  if (Buffer.byteLength(name) <= 100) return { name };
  for (let slash = name.indexOf('/'); slash >= 0; slash = name.indexOf('/', slash + 1)) {
    if (Buffer.byteLength(name.slice(slash + 1)) <= 100 && slash <= 155) return { prefix: name.slice(0, slash), name: name.slice(slash + 1) };
  }
  throw new Error(`${name}: too long for a ustar header`);
}

/** A folder's files and folders under `top`, sorted, as tar entries by name: what `tar -c` of it holds. */
export function entriesOf(folder: string, top: string): { name: string; bytes: Buffer }[] {
  const found: { name: string; bytes: Buffer }[] = [{ name: `${top}/`, bytes: entry({ name: `${top}/`, typeflag: '5' }) }];
  const walk = (relative: string): void => {
    for (const child of fs.readdirSync(path.join(folder, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = relative ? `${relative}/${child.name}` : child.name;
      if (child.isDirectory()) {
        found.push({ name: `${top}/${name}/`, bytes: entry({ ...ustarName(`${top}/${name}/`), typeflag: '5' }) });
        walk(name);
      } else {
        found.push({ name: `${top}/${name}`, bytes: entry(ustarName(`${top}/${name}`), fs.readFileSync(path.join(folder, name))) });
      }
    }
  };
  walk('');
  return found;
}
