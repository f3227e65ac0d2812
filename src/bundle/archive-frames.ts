// The archive's frames, and the frames an archive can take from the one it
// replaces.
//
// An export archived again after a small change is mostly the bytes it was:
// one line appended to one conversation changes that conversation's
// evidence, rounds and pages and the site's indexes, not the other
// conversations. Compressed as one zstd frame, the whole export would be
// compressed again all the same. So the tar is cut into frames at the edges of
// conversations: what a conversation owns (its evidence under bundle/<id>/,
// its rounds under bundle/_conversations/<id>/, its pages under site/c/,
// site/b/ and site/s/, its evidence pages under site/e/) is a group, neighbours
// in sorted order, and frames are runs of whole groups (framesOf), but that
// large groups and evidence pages are cut between entries too (groupOf). A
// frame whose tar bytes are known to be those of a frame of the previous
// archive is copied from it instead of compressed, which after a small change
// is most of them.
//
// What a frame holds is known without reading it: the tar headers (names,
// sizes, times) and each file's SHA-256, which the export has just taken for
// its manifest. A frame of the previous archive is used only when its bytes
// are still, byte for byte, those this index was written with (the SHA-256
// of each frame, taken as it was written and checked before it is copied,
// unless the archive's stamp says it is the file written, untouched since:
// PreviousFrames), so a changed or damaged old archive costs the reuse of the
// frames it touches, never the new archive's correctness. Frames rather than the
// whole archive, so that the new archive needs no SHA-256 of its own but
// that of the frames it compresses, and the old one only of the frames it
// gives. A frame is compressed from a
// fresh start with fixed parameters (frame-compressor.ts), so an archive made
// with reused frames is the archive made without them
// (test/bundle/archive.test.ts).
//
// For the same reason an entry's mtime is never the whole export's newest
// time, which an appended line would change in every header, and so in
// every frame (evidenceTimes).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BufferPool } from '../files/buffer-pool.ts';
import { replaceWithoutFlush } from '../files/atomic-file.ts';
import { readRange } from '../files/line-reader.ts';
import { landedNameOf, parseLandedName } from '../landing/layout.ts';
import { BUNDLE, conversationOwning } from './manifest.ts';
import { compareStamps, stampFromText, stampOf, stampOfOpen, stampText } from '../files/file-stamp.ts';

const EVIDENCE_PAGES = 'site/e/';
const PAGE_FOLDERS = ['site/c/', 'site/b/', EVIDENCE_PAGES, 'site/s/'];
// A conversation's search script: search/<id>.js (site/models/page-files.ts, searchScriptOf).
const SEARCH_FOLDER = 'site/search/';

/** The conversations an export holds, known from its file names alone: every bundle/<id>/ and bundle/_conversations/<id>/. */
export function conversationsNamed(files: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const file of files) {
    const conversation = conversationOwning(file);
    if (conversation !== undefined) named.add(conversation);
  }
  return named;
}

/**
 * The conversation an export path belongs to, folder or file, or undefined
 * for what belongs to the whole export. Pages are named c/<id>.html,
 * c/<id>-<n>.html, b/<id>--<branch>… and s/<id>--<stream>… (site/models/plan.ts),
 * evidence pages e/<id>--<seq>… (site/models/evidence.ts),
 * search scripts search/<id>.js; an id that a file name could not hold as it
 * is (plan.ts's slug) is not found, and its files count as the export's.
 */
export function ownerOf(name: string, conversations: ReadonlySet<string>): string | undefined {
  const trimmed = name.endsWith('/') ? name.slice(0, -1) : name;
  if (trimmed.startsWith(`${BUNDLE}/`)) return known(conversationOwning(trimmed), conversations);
  if (trimmed.startsWith(SEARCH_FOLDER) && trimmed.endsWith('.js')) return known(trimmed.slice(SEARCH_FOLDER.length, -'.js'.length), conversations);
  const folder = PAGE_FOLDERS.find((prefix) => trimmed.startsWith(prefix));
  if (folder === undefined) return undefined;
  const page = trimmed.slice(folder.length);
  if (page.includes('/') || !page.endsWith('.html')) return undefined;
  const base = page.slice(0, -'.html'.length);
  if (folder === 'site/c/') return known(base, conversations) ?? known(base.replace(/-\d+$/, ''), conversations);
  for (let at = base.indexOf('--'); at > 0; at = base.indexOf('--', at + 1)) {
    const owner = known(base.slice(0, at), conversations);
    if (owner !== undefined) return owner;
  }
  return undefined;
}

function known(id: string | undefined, conversations: ReadonlySet<string>): string | undefined {
  return id !== undefined && conversations.has(id) ? id : undefined;
}

/**
 * The group of an entry whose owner (ownerOf) is `owner`: its conversation's,
 * or else its folder's. Entries of one group are neighbours in sorted order.
 * Evidence pages are cut between pages, as a large group is (framesOf), once
 * the frame holds LEAST_CUT_BYTES, whatever their group's size: a
 * conversation that grows adds evidence pages and keeps those it had
 * (site/models/evidence.ts), so a new page changes a frame of a few pages
 * rather than a run of several conversations' pages, which are most of the
 * site's bytes.
 */
export function groupOf(name: string, owner: string | undefined): { name: string; conversation: boolean; cutBetweenEntries?: boolean } {
  if (owner !== undefined) return { name: `conversation ${owner}`, conversation: true, ...(name.startsWith(EVIDENCE_PAGES) ? { cutBetweenEntries: true } : {}) };
  const trimmed = name.endsWith('/') ? name.slice(0, -1) : name;
  return { name: `folder ${path.posix.dirname(trimmed)}`, conversation: false };
}

/** A group, or a file, of this many bytes or more is a frame of its own. */
export const LARGE_GROUP_BYTES = 8 << 20;

/** One group in this many, chosen by its name, ends a frame. */
const GROUPS_PER_FRAME = 8;

/**
 * A group of this many bytes or more ends the frame it is in: a
 * conversation's pages, rounds or evidence of a few hundred kilobytes lose
 * little compressed alone, and in a run of eight groups they were compressed
 * again whenever any one of the eight changed.
 */
const RUN_ENDING_BYTES = 256 << 10;

/** Inside a large group, one entry in this many, chosen by its name, ends a frame that holds at least LEAST_CUT_BYTES. */
const ENTRIES_PER_CUT = 8;
const LEAST_CUT_BYTES = 1 << 20;

/**
 * The entries cut into frames: runs of whole groups. A group that belongs to
 * no conversation is a frame of its own: the site's indexes and the folders
 * of the export's top change whenever anything does (a folder carries the
 * time of the newest evidence). So is a large group. Otherwise a frame ends
 * after a group whose name's digest says so, one in GROUPS_PER_FRAME.
 * A group of RUN_ENDING_BYTES or more ends its frame too. Every cut is
 * decided by a group or its neighbour, never by a running total, so a
 * conversation that grows moves no cut but its own: the frames around it
 * stay what they were.
 *
 * A large group is cut too, after an entry whose name's digest says so,
 * one in ENTRIES_PER_CUT, once the frame holds LEAST_CUT_BYTES: a
 * conversation's pages are a group, and a large conversation's pages would
 * otherwise be one frame, compressed again whole whenever one of them
 * changed. Frames of a few megabytes cost little in size, as zstd at this
 * level finds nothing further back than its window (2 MiB at level 3)
 * anyway. Evidence pages are cut so too, whatever the size of their group,
 * once the run they are in holds LEAST_CUT_BYTES (groupOf).
 *
 * A large file is a frame of its own too, cutting the group it is in: the
 * files that make a conversation large (its first landed transcripts and
 * their `.sd`) never change while it grows by small files, which join the
 * frame after them. Not smaller files: a landed file and its `.sd` hold
 * the same text, which zstd finds within one frame and not across two, so
 * putting smaller files alone makes the archive markedly larger.
 *
 * Why not a frame per group: small groups compress much worse alone than
 * in runs.
 */
export function framesOf<Entry extends { readonly name: string; readonly size: number }>(entries: readonly Entry[], group: (entry: Entry) => { readonly name: string; readonly conversation: boolean; readonly cutBetweenEntries?: boolean }): Entry[][] {
  const groups: { name: string; alone: boolean; cutBetweenEntries: boolean; bytes: number; entries: Entry[] }[] = [];
  for (const entry of entries) {
    const { name, conversation, cutBetweenEntries = false } = group(entry);
    if (groups.at(-1)?.name !== name) groups.push({ name, alone: !conversation, cutBetweenEntries, bytes: 0, entries: [] });
    const last = groups.at(-1)!;
    last.entries.push(entry);
    last.bytes += entry.size;
    if (last.bytes >= LARGE_GROUP_BYTES) last.alone = true;
  }
  const frames: Entry[][] = [];
  // Whether the last frame is a run that the next entry may join, and its bytes.
  let open = false;
  let frameBytes = 0;
  groups.forEach((current, index) => {
    const before = groups[index - 1];
    if (before === undefined || before.alone || current.alone || before.bytes >= RUN_ENDING_BYTES || endsAFrame(before.name, GROUPS_PER_FRAME)) open = false;
    // A large group is alone, so its frames start inside it and their bytes are the group's own.
    const cutBetweenEntries = current.cutBetweenEntries || current.bytes >= LARGE_GROUP_BYTES;
    for (const entry of current.entries) {
      if (entry.size >= LARGE_GROUP_BYTES) {
        frames.push([entry]);
        open = false;
        continue;
      }
      if (!open) {
        frames.push([]);
        frameBytes = 0;
      }
      open = true;
      frames.at(-1)!.push(entry);
      frameBytes += entry.size;
      // Never between a landed file and its `.sd`, which follows it and holds the same text.
      if (cutBetweenEntries && frameBytes >= LEAST_CUT_BYTES && parseLandedName(path.posix.basename(entry.name)) === undefined && endsAFrame(`entry ${entry.name}`, ENTRIES_PER_CUT)) open = false;
    }
  });
  return frames;
}

function endsAFrame(name: string, oneIn: number): boolean {
  return crypto.hash('sha256', name, 'buffer')[0]! % oneIn === 0;
}

/** The time a landed file's name gives, to the second, or that of the landed file a `.sd` is derived from; undefined for any other file. */
export function landedTime(file: string): number | undefined {
  const name = path.posix.basename(file);
  const parsed = parseLandedName(landedNameOf(name) ?? name);
  if (!parsed) return undefined;
  const time = Date.parse(parsed.time.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/, '$1-$2-$3T$4:$5:$6'));
  return Number.isFinite(time) ? Math.floor(time / 1000) * 1000 : undefined;
}

/**
 * The time of the evidence of each of these export entries (a file with
 * its owner, ownerOf, or a folder with no file), never the clock's; each
 * landed file's name is read once:
 * - a landed file, and the `.sd` derived from it: when it was landed, which
 *   its name says;
 * - any other file of a conversation (its rounds, pages and search script):
 *   the time of its first evidence. It stays while the conversation grows,
 *   so a round or page that did not change keeps its tar bytes, and its
 *   frame. With the conversation's newest time, one line added to a
 *   conversation would change the header of every file it has, and so
 *   every frame that holds one;
 * - a folder of a conversation: the time of its newest evidence;
 * - the rest, the whole export's: the newest evidence of all (0 when nothing
 *   is landed).
 */
export function evidenceTimes(entries: readonly { readonly file?: string; readonly owner?: string }[]): (entry: { readonly file?: string; readonly owner?: string }) => number {
  let all = 0;
  const landed = new Map<string, number>();
  const newest = new Map<string, number>();
  const first = new Map<string, number>();
  for (const { file, owner } of entries) {
    const time = file === undefined ? undefined : landedTime(file);
    if (time === undefined) continue;
    landed.set(file!, time);
    all = Math.max(all, time);
    if (owner === undefined) continue;
    newest.set(owner, Math.max(newest.get(owner) ?? 0, time));
    first.set(owner, Math.min(first.get(owner) ?? Infinity, time));
  }
  return ({ file, owner }) => {
    const own = file === undefined ? undefined : landed.get(file);
    if (own !== undefined) return own;
    if (owner === undefined) return all;
    return (file === undefined ? newest.get(owner) : first.get(owner)) ?? all;
  };
}

/** A frame of an archive: what its tar bytes are (see frameKey), and where it lies in the archive. */
export interface KeptFrame {
  readonly key: string;
  readonly offset: number;
  readonly length: number;
  /** SHA-256 of the frame's compressed bytes. */
  readonly sha256: string;
}

/** What is kept of an archive to take frames from it next time. */
export interface FrameIndex {
  readonly archive: string;
  readonly bytes: number;
  readonly frames: KeptFrame[];
  /** The archive's stamp (bundle/reuse.ts, stampText) once it was in place. */
  readonly stamp?: string;
}

/**
 * The key of a frame: a digest of its tar headers and of each file's SHA-256
 * in order, which fixes its tar bytes. Undefined when a file's SHA-256 is not known.
 */
export class FrameKey {
  private readonly hash = crypto.createHash('sha256');
  private complete = true;

  header(bytes: Uint8Array): void {
    this.hash.update(bytes);
  }

  content(sha256: string | undefined): void {
    if (sha256 === undefined) this.complete = false;
    else this.hash.update(sha256);
  }

  digest(): string | undefined {
    return this.complete ? this.hash.digest('hex') : undefined;
  }
}

/**
 * The previous archive's frames by key, with the archive open to copy them;
 * none when it is not the archive the index was written with. While the
 * archive's stamp is the one taken once it was in place, its bytes are those
 * written, as with the export's reused files (bundle/reuse.ts), and no frame
 * needs reading to be trusted; otherwise each frame is checked by its SHA-256.
 */
export class PreviousFrames {
  private closed = false;

  private constructor(
    readonly descriptor: number | undefined,
    private readonly frames: ReadonlyMap<string, KeptFrame>,
    private readonly unchanged: boolean,
  ) {}

  static none(): PreviousFrames {
    return new PreviousFrames(undefined, new Map(), false);
  }

  /** Opens the archive the index names when it is still its size; each frame is checked when it is asked for (find), unless the archive is untouched since it was written. */
  static open(indexFile: string, archive: string): PreviousFrames {
    let index: FrameIndex;
    try {
      index = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as FrameIndex;
    } catch {
      return PreviousFrames.none();
    }
    if (index.archive !== archive || !Array.isArray(index.frames)) return PreviousFrames.none();
    let descriptor: number;
    try {
      descriptor = fs.openSync(archive, 'r');
    } catch {
      return PreviousFrames.none();
    }
    try {
      if (fs.fstatSync(descriptor).size === index.bytes) {
        const unchanged = typeof index.stamp === 'string' && compareStamps(stampOfOpen(descriptor), stampFromText(index.stamp)) === 'same';
        return new PreviousFrames(descriptor, new Map(index.frames.map((frame) => [frame.key, frame])), unchanged);
      }
    } catch {
      // Unreadable: as good as changed.
    }
    fs.closeSync(descriptor);
    return PreviousFrames.none();
  }

  /** The frame of the previous archive with this key, when its bytes are still those the index recorded. */
  find(key: string | undefined, buffers: BufferPool): KeptFrame | undefined {
    const frame = key === undefined ? undefined : this.frames.get(key);
    if (frame === undefined || typeof frame.sha256 !== 'string') return undefined;
    if (this.unchanged) return frame;
    const hash = crypto.createHash('sha256');
    try {
      for (const chunk of readRange(this.descriptor!, frame.offset, frame.offset + frame.length, 'the previous archive is shorter than its index says', buffers)) hash.update(chunk);
    } catch {
      return undefined;
    }
    return hash.digest('hex') === frame.sha256 ? frame : undefined;
  }

  /** Closes the previous archive, once however often it is called. */
  close(): void {
    if (this.descriptor !== undefined && !this.closed) fs.closeSync(this.descriptor);
    this.closed = true;
  }
}

/**
 * Keeps the index of the archive just written, for the next archive at the
 * same path. It is not flushed: an index lost in a crash, or one that names
 * an archive that did not survive it, only costs the next archive its reuse.
 */
export function keepFrameIndex(indexFile: string, index: FrameIndex): void {
  fs.mkdirSync(path.dirname(indexFile), { recursive: true });
  const stamp = stampOf(index.archive);
  replaceWithoutFlush(indexFile, `${JSON.stringify({ ...index, ...(stamp !== undefined ? { stamp: stampText(stamp) } : {}) })}\n`);
}

/** Where the index of the archive at `archive` is kept: in the data folder, beside the site's cache and outside every export. */
export function frameIndexOf(data: string, archive: string): string {
  return path.join(data, '_archive-frames', `${crypto.createHash('sha256').update(path.resolve(archive)).digest('hex').slice(0, 32)}.json`);
}
