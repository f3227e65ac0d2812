// Small images made byte by byte, for the fixtures and the tests: PNG
// images a browser shows, and the headers of a GIF, a JPEG and a WebP image
// that state a size. Deterministic: the same arguments give the same bytes,
// whatever zlib a Node has, as the PNG's data is deflated here, with fixed
// codes and runs of one byte (enough for the flat colours of a made-up
// screenshot).

/** An indexed-colour PNG of `width` by `height` pixels: `palette` holds its colours as [red, green, blue], and `pixel(x, y)` the index of each. */
export function pngImage(width: number, height: number, palette: readonly (readonly [number, number, number])[], pixel: (x: number, y: number) => number): Buffer {
  const rows = Buffer.alloc(height * (1 + width));
  let previous: Buffer | undefined;
  for (let y = 0; y < height; y++) {
    const start = y * (1 + width);
    const row = Buffer.alloc(width);
    for (let x = 0; x < width; x++) row[x] = pixel(x, y);
    // Filter type 2 (up) for a row like the one above, which is then all zeros; else type 0, the row as it is.
    if (previous?.equals(row)) rows[start] = 2;
    else row.copy(rows, start + 1);
    previous = row;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 3, 0, 0, 0], 8);
  const colours = Buffer.from(palette.flatMap((colour) => [...colour]));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('PLTE', colours), chunk('IDAT', zlibOfRuns(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** The header of a GIF89a of `width` by `height` pixels, and the trailer: a size to read, not an image to show. */
export function gifHeader(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, Buffer.from([0x3b])]);
}

/** The start of a JPEG of `width` by `height` pixels: its start of image, a JFIF segment and a baseline start of frame. */
export function jpegHeader(width: number, height: number): Buffer {
  const jfif = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const frame = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), jfif, frame, Buffer.from([0xff, 0xd9])]);
}

/** The start of a lossless WebP (VP8L) of `width` by `height` pixels. */
export function webpHeader(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const stream = Buffer.alloc(5);
  stream[0] = 0x2f;
  stream.writeUInt32LE(bits >>> 0, 1);
  const body = Buffer.concat([Buffer.from('WEBPVP8L', 'latin1'), Buffer.alloc(4), stream]);
  body.writeUInt32LE(stream.length, 8);
  const file = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.alloc(4), body]);
  file.writeUInt32LE(body.length, 4);
  return file;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const named = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(named));
  return Buffer.concat([length, named, crc]);
}

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];

/** A zlib stream of `data`: one deflate block of fixed codes, each run of a byte repeated written as a copy of the byte before it. */
function zlibOfRuns(data: Buffer): Buffer {
  const bytes: number[] = [0x78, 0x01];
  let bits = 0;
  let count = 0;
  const write = (value: number, length: number): void => {
    for (let bit = 0; bit < length; bit++) {
      bits |= ((value >>> bit) & 1) << count;
      if (++count === 8) {
        bytes.push(bits);
        bits = 0;
        count = 0;
      }
    }
  };
  // A Huffman code goes in from its first bit, the others' bits from their last.
  const code = (value: number, length: number): void => {
    for (let bit = length - 1; bit >= 0; bit--) write((value >>> bit) & 1, 1);
  };
  const symbol = (value: number): void => {
    if (value < 144) code(0x30 + value, 8);
    else if (value < 256) code(0x190 + value - 144, 9);
    else if (value < 280) code(value - 256, 7);
    else code(0xc0 + value - 280, 8);
  };
  // The final block, of fixed codes.
  write(1, 1);
  write(1, 2);
  for (let at = 0; at < data.length; ) {
    let run = 0;
    if (at > 0) while (run < 258 && at + run < data.length && data[at + run] === data[at - 1]) run++;
    if (run < 3) {
      symbol(data[at]!);
      at++;
      continue;
    }
    let index = LENGTH_BASE.length - 1;
    while (LENGTH_BASE[index]! > run) index--;
    symbol(257 + index);
    write(run - LENGTH_BASE[index]!, LENGTH_EXTRA[index]!);
    // Distance 1: code 0, five bits.
    code(0, 5);
    at += run;
  }
  symbol(256);
  if (count > 0) bytes.push(bits);
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  return Buffer.concat([Buffer.from(bytes), adler]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
