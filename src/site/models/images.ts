// An image of a transcript as the site shows it: a file of the site, named
// by the SHA-256 of its bytes, when it is a PNG, JPEG, GIF or WebP image
// whose bytes are what its media type says; otherwise why it is not shown.
//
// The media type a record declares is a claim, not a fact: a payload
// labelled image/png may be an SVG with a script or a page of HTML, which a
// browser would run if it were opened as what it is. So the bytes must begin
// with the magic number of the raster type declared, and no other type is
// ever a file of the site: never SVG, which is a document that can hold
// scripts and links. A browser shows a raster image as pixels and runs
// nothing in it.
//
// The bytes come from the `.sd` part, base64 as the transcript holds it, and
// are decoded here both by the page model (for the file's name and the
// image's size) and by the writer of the site's image files
// (generator/image-files.ts), so the two agree by construction.

import crypto from 'node:crypto';
import type { MediaPart } from '../../session-data/format.ts';
import { MEDIA_LEFT_OUT, wholePlaceholder } from '../../session-data/placeholder.ts';
import type { IImage } from 'image-size/types/interface';
import { GIF } from 'image-size/types/gif';
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';
import { WEBP } from 'image-size/types/webp';

/** The folder of the site's image files, from the site root. */
export const IMAGE_FOLDER = 'images';

/** A raster type the site shows: its media type, the extension of its file, its name in words, its magic number, and the reader of its size. */
interface Raster {
  readonly type: string;
  readonly extension: string;
  readonly name: string;
  readonly begins: (bytes: Buffer) => boolean;
  readonly header: IImage;
}

const ascii = (bytes: Buffer, start: number, end: number): string => bytes.toString('latin1', start, end);

const RASTERS: readonly Raster[] = [
  { type: 'image/png', extension: 'png', name: 'a PNG image', begins: (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), header: PNG },
  { type: 'image/jpeg', extension: 'jpg', name: 'a JPEG image', begins: (bytes) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff, header: JPG },
  { type: 'image/gif', extension: 'gif', name: 'a GIF image', begins: (bytes) => ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a', header: GIF },
  { type: 'image/webp', extension: 'webp', name: 'a WebP image', begins: (bytes) => ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP', header: WEBP },
];

/** Names a type is also declared by: `image/jpg` is common, though not registered. */
const ALIASES: Readonly<Record<string, string>> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/**
 * Base64 as the transcript holds it: the standard alphabet, padded, with no
 * white space; that is, groups of four characters of the alphabet, the last
 * ending in at most two `=`. Said as a length and one class, which V8 scans
 * about three times as fast as the groups spelt out (images run to
 * megabytes, and each is checked where its page is rendered and where its
 * file is written).
 */
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (data: string): boolean => data.length % 4 === 0 && BASE64_CHARACTERS.test(data);

/** An image the site shows, with its bytes for the writer of its file. */
export interface RasterImage {
  readonly shown: true;
  /** The media type, as the bytes say and the record declared. */
  readonly type: string;
  /** The image's file, from the site root: images/<sha256>.<extension>. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: Buffer;
  /** From the image's header, when it can be read: the page reserves its room before the image loads. */
  readonly width?: number;
  readonly height?: number;
}

/** A medium the site does not show, and why, in words that follow "not shown: ". */
export interface ImageNotShown {
  readonly shown: false;
  readonly why: string;
}

/** The media type `declared` in its plain form: lower case, without parameters, aliases named by their registered name. */
export function mediaTypeOf(declared: string): string {
  const plain = declared.split(';', 1)[0]!.trim().toLowerCase();
  return ALIASES[plain] ?? plain;
}

/** Whether the site shows media of the type `declared` at all, whatever its bytes. */
export function isShownType(declared: string): boolean {
  const type = mediaTypeOf(declared);
  return RASTERS.some((raster) => raster.type === type);
}

/**
 * The image a medium's part is as the site shows it, or why it is not
 * shown: not held by the source, left out of a redacted export (its data
 * replaced by a placeholder of the rule MEDIA_LEFT_OUT names), its data cut
 * by a redaction, or not an image the site shows (rasterImage). The page
 * (parts.ts) and the writer of the image files (generator/image-files.ts)
 * both ask this, so a page names exactly the files written.
 */
export function imageOfPart(part: MediaPart): RasterImage | ImageNotShown {
  if (part.data === undefined) return { shown: false, why: 'not held by the source' };
  if (part.state === 'redacted') {
    const whole = wholePlaceholder(part.data);
    if (whole?.rule === MEDIA_LEFT_OUT.image) return { shown: false, why: 'left out of this redacted export, as no rule can read a screenshot for secrets (an export with --keep-images keeps images)' };
    if (whole?.rule === MEDIA_LEFT_OUT.document) return { shown: false, why: 'left out of this redacted export, as no rule can read a document for secrets (an export with --keep-images keeps them)' };
    return { shown: false, why: 'a redaction took secrets out of its data' };
  }
  return rasterImage(part.data, part.media_type);
}

/**
 * The image that the base64 `data`, declared as `declared`, is as the site
 * shows it; or why it is not shown: a type the site does not show, data
 * that is not base64, or bytes that are not the raster type declared.
 */
export function rasterImage(data: string, declared: string): RasterImage | ImageNotShown {
  const type = mediaTypeOf(declared);
  const raster = RASTERS.find((candidate) => candidate.type === type);
  if (raster === undefined) {
    if (type === 'image/svg+xml') return { shown: false, why: 'an SVG image is a document that can hold scripts, and the site shows only PNG, JPEG, GIF and WebP images' };
    return { shown: false, why: `the site shows only PNG, JPEG, GIF and WebP images` };
  }
  if (!isBase64(data)) return { shown: false, why: 'its data is not base64' };
  const bytes = Buffer.from(data, 'base64');
  if (!raster.begins(bytes)) {
    const actual = RASTERS.find((candidate) => candidate.begins(bytes));
    if (actual !== undefined) return { shown: false, why: `its bytes are ${actual.name}, not the ${type} it is labelled` };
    return { shown: false, why: `its bytes are not ${raster.name}${looksLikeMarkup(bytes) ? ' but markup (HTML, SVG or XML)' : ''}` };
  }
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  return { shown: true, type, file: `${IMAGE_FOLDER}/${sha256}.${raster.extension}`, sha256, bytes, ...sizeOf(raster, bytes) };
}

/** The width and height the image's header states; none when it cannot be read or states none. */
function sizeOf(raster: Raster, bytes: Buffer): { width?: number; height?: number } {
  try {
    if (!raster.header.validate(bytes)) return {};
    const { width, height, orientation } = raster.header.calculate(bytes);
    if (!(Number.isSafeInteger(width) && Number.isSafeInteger(height) && width > 0 && height > 0)) return {};
    // A JPEG's EXIF orientation 5 to 8 turns it a quarter: a browser shows it turned, its width as its height.
    return orientation !== undefined && orientation >= 5 && orientation <= 8 ? { width: height, height: width } : { width, height };
  } catch {
    // A header cut short or malformed: the browser lays the image out once it has read it.
    return {};
  }
}

/** Whether bytes begin, past white space and a byte order mark, with `<`, as HTML, SVG and XML do. */
function looksLikeMarkup(bytes: Buffer): boolean {
  const start = ascii(bytes, 0, 64).replace(/^(?:\u00ef\u00bb\u00bf)?\s*/, '');
  return start.startsWith('<');
}
