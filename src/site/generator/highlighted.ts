// The highlight cache: shiki's output for one piece of code, on disk, found
// by the SHA-256 of the themes it was highlighted with, its language and its
// text, so that branch pages that repeat a block, and a second export of the
// same conversations, highlight nothing again. It lives outside the export: it is not evidence.
//
// Each build process appends the blocks it highlights to files of its own,
// <cache>/highlighted/<pid>-<random>.blocks, and after each block a line
// `<key> <offset> <length>` to the .index beside them; a build reads every
// index when it starts. A file per block, written under a temporary name and
// renamed, made tens of thousands of files for a large site (creating them,
// their folders, and the exceptions of the reads that missed), a good part
// of a first build (bench/results/measurements-behind-choices.md), and the file system's time for it
// varied from run to run. A build that ends halfway leaves index lines only
// for blocks whose bytes are all written, so what it wrote stays usable, and
// two builds at once write to files of their own.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../../files/folders.ts';

/** The key of a block: `themes` names the themes its colours are from, so that a block made with others is highlighted again. */
export function highlightKey(themes: string, language: string, code: string): string {
  return crypto.createHash('sha256').update(themes).update('\0').update(language).update('\0').update(code).digest('hex');
}

const FOLDER = 'highlighted';
const INDEX_LINE = /^([0-9a-f]{64}) (\d+) (\d+)$/;

interface Place {
  readonly blocks: string;
  readonly offset: number;
  readonly length: number;
}

/** Every block the cache holds, by key, from the indexes; a line whose bytes are not all in its blocks file is left out. */
function readIndexes(cache: string): Map<string, Place> {
  const places = new Map<string, Place>();
  const folder = path.join(cache, FOLDER);
  for (const name of listFolder(folder)) {
    if (!name.endsWith('.index')) continue;
    const blocks = path.join(folder, name.replace(/\.index$/, '.blocks'));
    let size: number;
    let text: string;
    try {
      size = fs.statSync(blocks).size;
      text = fs.readFileSync(path.join(folder, name), 'latin1');
    } catch {
      continue;
    }
    // The last line counts only when its newline is written.
    for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
      const place = wholePlace(line, size);
      if (place && !places.has(place.key)) places.set(place.key, { blocks, offset: place.offset, length: place.length });
    }
  }
  return places;
}

/** The block an index line names, when the line is one and its pack of `size` bytes holds the block whole. */
function wholePlace(line: string, size: number): { key: string; offset: number; length: number } | undefined {
  const match = INDEX_LINE.exec(line);
  if (!match) return undefined;
  const offset = Number(match[2]);
  const length = Number(match[3]);
  return offset + length <= size ? { key: match[1]!, offset, length } : undefined;
}

export interface HighlightStore {
  /** The highlighted HTML kept under `key`, if any. */
  read(key: string): string | undefined;
  /** Keeps `html` under `key`, for this build and the next ones. */
  add(key: string, html: string): void;
  /** Reads the cache's indexes now rather than at the first read. */
  warm(): void;
  close(): void;
}

/** The highlight cache of `cache`, as this process reads and adds to it. */
export function openHighlightStore(cache: string): HighlightStore {
  let places: Map<string, Place> | undefined;
  const descriptors = new Map<string, number>();
  let own: { file: string; blocks: number; index: number; offset: number } | undefined;
  const descriptorOf = (file: string): number => {
    let descriptor = descriptors.get(file);
    if (descriptor === undefined) descriptors.set(file, (descriptor = fs.openSync(file, 'r')));
    return descriptor;
  };
  return {
    read(key) {
      places ??= readIndexes(cache);
      const place = places.get(key);
      if (!place) return undefined;
      const bytes = Buffer.allocUnsafe(place.length);
      let done = 0;
      while (done < place.length) {
        const read = fs.readSync(descriptorOf(place.blocks), bytes, done, place.length - done, place.offset + done);
        if (read === 0) return undefined;
        done += read;
      }
      return bytes.toString('utf8');
    },
    add(key, html) {
      if (!own) {
        const folder = path.join(cache, FOLDER);
        fs.mkdirSync(folder, { recursive: true });
        const name = `${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
        const file = path.join(folder, `${name}.blocks`);
        own = { file, blocks: fs.openSync(file, 'a'), index: fs.openSync(path.join(folder, `${name}.index`), 'a'), offset: 0 };
      }
      // The cache is disposable, so no fsync; the index line follows the bytes it names.
      const bytes = Buffer.from(html, 'utf8');
      fs.writeSync(own.blocks, bytes);
      fs.writeSync(own.index, `${key} ${own.offset} ${bytes.length}\n`);
      (places ??= readIndexes(cache)).set(key, { blocks: own.file, offset: own.offset, length: bytes.length });
      own.offset += bytes.length;
    },
    warm() {
      places ??= readIndexes(cache);
    },
    close() {
      for (const descriptor of descriptors.values()) fs.closeSync(descriptor);
      descriptors.clear();
      if (own) for (const descriptor of [own.blocks, own.index]) fs.closeSync(descriptor);
      own = undefined;
    },
  };
}

/**
 * Removes the blocks an earlier version kept one file each, in folders named
 * by the first two digits of their key: no build reads them any more.
 */
export function removeEarlierBlocks(cache: string): void {
  for (const name of listFolder(cache)) if (/^[0-9a-f]{2}$/.test(name)) fs.rmSync(path.join(cache, name), { recursive: true, force: true });
}

/**
 * How many blocks have been highlighted into the cache, whole: the complete
 * lines of its indexes (a block two builds highlighted at once counts twice,
 * as the work it was). Only the indexes are read: the cache folder also
 * holds the site's finished pages, and a walk through them is slow for a
 * large site. The lines are counted, not parsed into places as readIndexes
 * does (bench/results/measurements-behind-choices.md): one process appends to a pack, so its
 * offsets only grow, and
 * only the last lines can name bytes an interrupted build never wrote.
 */
export function cachedBlocks(cache: string): number {
  const folder = path.join(cache, FOLDER);
  let blocks = 0;
  for (const name of listFolder(folder)) {
    if (!name.endsWith('.index')) continue;
    let index: Buffer;
    let size: number;
    try {
      index = fs.readFileSync(path.join(folder, name));
      size = fs.statSync(path.join(folder, name.replace(/\.index$/, '.blocks'))).size;
    } catch {
      continue;
    }
    const ends: number[] = [];
    for (let at = index.indexOf(0x0a); at >= 0; at = index.indexOf(0x0a, at + 1)) ends.push(at);
    let whole = ends.length;
    while (whole > 0 && !wholePlace(index.toString('latin1', whole > 1 ? ends[whole - 2]! + 1 : 0, ends[whole - 1]), size)) whole--;
    blocks += whole;
  }
  return blocks;
}
