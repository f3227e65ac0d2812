// The store of finished pages, in the site cache: what lets an export render
// only what changed since the last one.
//
// A conversation's pages are a function of its bundle files and of the
// site's code, and of nothing else: no page names another conversation. So
// its finished pages are kept under a key of the two, and a build renders
// only the conversations whose key is new, placing the others' pages from
// the store. The files that are no conversation's own (the index, search,
// scripts and style sheets) depend on every conversation, so they are kept
// under one key over all of them (siteEntry). And a conversation rendered
// again keeps each page whose model did not change from its earlier render
// (earlier-page-records.ts, models/view-digests.ts).
//
// An entry is <cache>/pages/<conversation>.<key>/plan.json, files/<page>, and `complete`,
// written last, so that an entry an interrupted build left is never used.
// The pages in files/ and in the export are one file, hard links to each
// other: copying them would cost about as much as the rest of a second
// export's site step once only one conversation changed. `complete` names
// every file with its stamp (bundle/reuse.ts) and its SHA-256: a page edited
// in an export edits the cache too, and a page replaced in the cache is
// another inode, so either way the stamp no longer matches and the entry is
// rendered again rather than trusted. Every export links the kept pages and
// removes the earlier export's links, which moves their change times: so
// the stamps of every file kept by a build are recorded again, all in one
// file beside the store (`page-stamps`), settled once the earlier export is
// gone (files/file-stamp.ts, StampsRecord), which the next build compares
// with before the stamps in `complete`.
//
// Beside an entry's plan, `plan.pages.jsonl` records the digest of each page
// as it was rendered or kept: a line naming the code, then a line for each
// page, appended, so that recording a conversation's pages one by one writes
// each page's line once.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compareStamps, settledMarkerOf, settledTime, stampFromText, stampOf, stampText, type FileStamp, type StampsRecord } from '../../files/file-stamp.ts';
import { replaceWithoutFlush } from '../../files/atomic-file.ts';
import { digestOfFile } from '../../files/digest.ts';
import { listFolder } from '../../files/folders.ts';
import { slug } from '../models/page-files.ts';
import { readSavedPlan, renderedFiles, talkSizesBeside, type EarlierPages } from './site-input.ts';
import { evidenceBeside } from './evidence-pages.ts';
import { linkOrCopy, linkOrCopyNamedByBytes } from './link-or-copy.ts';
import { isImageFile } from './image-files.ts';

const PLAN = 'plan.json';
const COMPLETE = 'complete';
const FILES = 'files';
const STAMPS = 'page-stamps';

interface KeptFile {
  readonly file: string;
  readonly stamp: FileStamp | undefined;
  readonly sha256: string;
}

/** An entry of the store, and whether it can be used as it is. */
export interface Entry {
  readonly folder: string;
  /** True when the store has no finished entry for this key, or one whose files changed: it is rendered. */
  readonly render: boolean;
  /** The files of a finished entry. */
  readonly kept?: readonly KeptFile[];
}

/** A conversation's entry. */
export interface Finished extends Entry {
  readonly id: string;
  /** Where the build saves the conversation's plan, or an earlier one saved it. */
  readonly plan: string;
  /** The conversation's page files and its search script, from the site root, once its plan is saved. */
  readonly pages: () => string[];
}

export class PageStore {
  private readonly folder: string;
  /** Where the stamps of the kept files are recorded again after each export (stampsRecord). */
  private readonly stampsFile: string;
  /** Those stamps as text, by `<entry>/<file>`: read as a stamp only when its entry is looked at. */
  private readonly stamps: ReadonlyMap<string, string>;
  /** When the files of those stamps last changed by the export that recorded them and the removal of the one before it. */
  private readonly settled: bigint | undefined;
  /** The files of each entry this build found finished or kept, by its folder, with the stamp each was checked or kept with. */
  private readonly keptIn = new Map<string, readonly KeptFile[]>();
  /**
   * The size of each file this build kept or placed into the site, by path
   * from the site root, known from the stamp it was kept with: the site's
   * pages are measured from it rather than walked and read again.
   */
  readonly sizes = new Map<string, number>();
  /** What the render of each conversation rendered recorded beside its plan, by its plan: read once, after the render (recordedBeside). */
  private readonly recorded = new Map<string, Recorded>();

  /** The store in the site cache `cache`, for pages rendered by the site's `code` (kept-renderer.ts, siteCode). */
  constructor(
    cache: string,
    private readonly code: string,
  ) {
    this.folder = path.join(cache, 'pages');
    this.stampsFile = path.join(cache, STAMPS);
    // Before the stamps: a marker written after they were read would settle newer ones.
    this.settled = settledTime(settledMarkerOf(this.stampsFile));
    this.stamps = readStamps(this.stampsFile);
  }

  /** The entry of each conversation, under the key of its code and its bundle files' digest (`inputs`, by conversation). */
  find(inputs: ReadonlyMap<string, string>): Finished[] {
    return [...inputs].map(([id, input]) => {
      const key = crypto.createHash('sha256').update(`${this.code}\n${id}\n${input}`).digest('hex');
      const entry = this.entryOf(path.join(this.folder, `${entryPrefixOf(id)}${key}`));
      const plan = path.join(entry.folder, PLAN);
      return { id, plan, ...entry, pages: () => (entry.kept ? entry.kept.map(({ file }) => file) : this.recordedOf(id, plan).files) };
    });
  }

  /** The entry of the files that are no conversation's own, under a key over every conversation's. */
  siteEntry(finished: readonly Finished[]): Entry {
    return this.entryOf(path.join(this.folder, `site-${crypto.createHash('sha256').update(finished.map(({ folder }) => path.basename(folder)).join('\n')).digest('hex')}`));
  }

  /**
   * For each conversation to render, the entry its earlier render left, when
   * that render recorded its page digests for this code and the entry's
   * files are still those it kept: the pages whose models did not change are
   * taken from it (earlier-page-records.ts). An entry no current key names is one
   * that a conversation had before it changed, or before the code did; they
   * are few, as each build removes the entries it does not use.
   */
  earlierPages(finished: readonly Finished[]): Map<string, EarlierPages> {
    const rendering = new Set(finished.filter(({ render }) => render).map(({ id }) => id));
    const current = new Set(finished.map(({ folder }) => path.basename(folder)));
    const found = new Map<string, EarlierPages>();
    if (rendering.size === 0) return found;
    const prefixes = [...rendering].map(entryPrefixOf);
    for (const name of listFolder(this.folder)) {
      // Named for another conversation: its plan need not be read to know it.
      if (current.has(name) || !prefixes.some((prefix) => name.startsWith(prefix))) continue;
      const folder = path.join(this.folder, name);
      const digests = pageDigestsBeside(path.join(folder, PLAN));
      if (readPageDigests(digests)?.code !== this.code) continue;
      let id: string;
      try {
        id = readSavedPlan(path.join(folder, PLAN)).summary.id;
      } catch {
        continue;
      }
      if (!rendering.has(id) || found.has(id) || this.entryOf(folder).render) continue;
      found.set(id, { files: path.join(folder, FILES), digests, talks: talkSizesBeside(path.join(folder, PLAN)) });
    }
    return found;
  }

  /** How many pages of the conversations just rendered were kept from their earlier render. */
  keptFromEarlier(finished: readonly Finished[]): number {
    return finished.reduce((sum, { render, id, plan }) => sum + (render ? this.recordedOf(id, plan).kept : 0), 0);
  }

  /** What the render of a conversation rendered recorded beside its plan (recordedBeside), read the first time it is asked for. */
  private recordedOf(id: string, plan: string): Recorded {
    let recorded = this.recorded.get(plan);
    if (recorded === undefined) this.recorded.set(plan, (recorded = recordedBeside(id, plan)));
    return recorded;
  }

  /**
   * The record of the stamps of the files of these entries (STAMPS), each as
   * this build checked or kept it, settled once the earlier export is gone.
   */
  stampsRecord(entries: readonly Entry[]): StampsRecord {
    const kept = entries.flatMap(({ folder }) => (this.keptIn.get(folder) ?? []).map(({ file, stamp }) => ({ key: `${path.basename(folder)}/${file}`, stamp })));
    return {
      marker: settledMarkerOf(this.stampsFile),
      save: () => replaceWithoutFlush(this.stampsFile, kept.map(({ key, stamp }) => (stamp !== undefined ? `${stampText(stamp)} ${key}\n` : '')).join('')),
    };
  }

  /**
   * An entry of the store, and whether it can be used as it is: each of its
   * files compared with the stamp recorded last, after the last export
   * (STAMPS), or else with the one its entry was kept with.
   */
  private entryOf(folder: string): Entry {
    const kept = keptFilesOf(folder);
    if (kept === undefined) return { folder, render: true };
    const entry = path.basename(folder);
    const latest = kept.map(({ file, stamp, sha256 }) => {
      const text = this.stamps.get(`${entry}/${file}`);
      const recorded = text !== undefined ? stampFromText(text) : undefined;
      return recorded !== undefined ? { file, stamp: recorded, sha256, settled: this.settled } : { file, stamp, sha256, settled: undefined };
    });
    if (latest.every(({ file, stamp, sha256, settled }) => keptAsItWas(path.join(folder, FILES, file), stamp, sha256, settled))) {
      this.keptIn.set(folder, latest);
      return { folder, render: false, kept };
    }
    fs.rmSync(folder, { recursive: true, force: true });
    return { folder, render: true };
  }

  /**
   * Keeps the files named, just written under `out`, as the finished entry
   * `entry`; their digests go into `digests`. Those `known` gives, taken
   * from the bytes as they were written, are not read again.
   */
  keep(out: string, entry: Entry, files: readonly string[], digests: Map<string, string>, known: ReadonlyMap<string, string> = new Map()): void {
    const { folder } = entry;
    // What an interrupted build left of the entry goes first: a link cannot replace a file.
    fs.rmSync(path.join(folder, FILES), { recursive: true, force: true });
    const lines: string[] = [];
    const kept: KeptFile[] = [];
    for (const file of files) {
      linkOrCopy(out, path.join(folder, FILES), file);
      const sha256 = known.get(file) ?? digestOfFile(path.join(out, file));
      digests.set(file, sha256);
      const stamp = stampOf(path.join(folder, FILES, file));
      lines.push(`${stamp !== undefined ? stampText(stamp) : 'none'} ${sha256} ${file}\n`);
      kept.push({ file, stamp, sha256 });
      this.measured(out, file, stamp);
    }
    fs.writeFileSync(path.join(folder, COMPLETE), lines.join(''));
    this.keptIn.set(folder, kept);
  }

  /**
   * Puts the files of the finished entry `entry` into `out`, with their
   * digests into `digests`; returns them. An image file another entry
   * placed already is the same bytes (image-files.ts), and stays.
   */
  place(entry: Entry, out: string, digests: Map<string, string>): string[] {
    for (const { file, sha256, stamp } of entry.kept!) {
      if (isImageFile(file)) linkOrCopyNamedByBytes(path.join(entry.folder, FILES), out, file);
      else linkOrCopy(path.join(entry.folder, FILES), out, file);
      digests.set(file, sha256);
      this.measured(out, file, stamp);
    }
    return entry.kept!.map(({ file }) => file);
  }

  /** Notes the size of the site file `file`, just kept or placed under `out`: its stamp's, else as it is there. */
  private measured(out: string, file: string, stamp: FileStamp | undefined): void {
    this.sizes.set(file, stamp !== undefined ? Number(stamp.size) : fs.statSync(path.join(out, file)).size);
  }

  /** Places the pages of every conversation of `finished` that is not rendered again (place); returns them. */
  placeFinished(out: string, finished: readonly Finished[], digests: Map<string, string>): Set<string> {
    return new Set(finished.flatMap((entry) => (entry.render ? [] : this.place(entry, out, digests))));
  }

  /**
   * Keeps the pages of every conversation just rendered for the next build.
   * Entries neither of `finished` nor `site` are removed, so the store holds
   * about one site.
   */
  keepRendered(out: string, finished: readonly Finished[], site: Entry, digests: Map<string, string>): void {
    for (const entry of finished) if (entry.render) this.keep(out, entry, entry.pages(), digests, this.recordedOf(entry.id, entry.plan).sha256);
    const used = new Set([...finished.map(({ folder }) => path.basename(folder)), path.basename(site.folder)]);
    for (const name of listFolder(this.folder)) if (!used.has(name)) fs.rmSync(path.join(this.folder, name), { recursive: true, force: true });
  }
}


/**
 * How the name of every entry of the conversation `id` begins: its name in
 * the site's files, so that the entries of one conversation are found by
 * their names. Two conversations' prefixes may still begin alike, and an
 * entry is taken for one only by the id its plan names.
 */
function entryPrefixOf(id: string): string {
  return `${slug(id)}.`;
}

/** The files an entry's `complete` names; undefined when there is none. */
function keptFilesOf(folder: string): KeptFile[] | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, COMPLETE), 'utf8');
  } catch {
    return undefined;
  }
  const kept = text.split('\n').filter((line) => line !== '').map((line): KeptFile => {
    const [stamp, sha256, ...file] = line.split(' ');
    return { stamp: stampFromText(stamp!), sha256: sha256!, file: file.join(' ') };
  });
  return kept;
}

/**
 * The stamps recorded again after the last export, as text, by
 * `<entry>/<file>`; none when they cannot be read. A line that is not whole,
 * as a crash may leave the unflushed file, names no stamp (stampFromText)
 * and is taken for no record.
 */
function readStamps(file: string): Map<string, string> {
  const stamps = new Map<string, string>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return stamps;
  }
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) stamps.set(line.slice(space + 1), line.slice(0, space));
  }
  return stamps;
}

/**
 * Whether a kept file is as it was kept: its stamp unchanged, or changed in
 * its change time alone by no later than the `settled` time of the record
 * the stamp is from, or else (a later link made or removed, and an edit
 * whose modification time was set back, look the same) with its bytes still
 * of its digest.
 */
function keptAsItWas(file: string, stamp: FileStamp | undefined, sha256: string, settled: bigint | undefined): boolean {
  const compared = compareStamps(stampOf(file), stamp, settled);
  return compared === 'same' || (compared === 'change time only' && digestOfFile(file) === sha256);
}

/** What is recorded of a conversation's pages beside its plan: each page's digest, and whether it was kept from the earlier render. */
export interface PageDigests {
  /** The site's code the pages were rendered with (kept-renderer.ts, siteCode). */
  readonly code: string;
  readonly pages: Record<string, { readonly digest: string; readonly kept: boolean; readonly sha256?: string }>;
}

/** What the render of a conversation recorded beside its plan. */
interface Recorded {
  /** Its page files, its search script, its evidence pages and its image files, from the site root. */
  readonly files: string[];
  /**
   * The SHA-256 of the bytes of each page and evidence page that its render
   * wrote, by file, as the writers took them from the bytes they wrote
   * (earlier-page-records.ts, rendered; evidence-pages.ts): the pages kept from
   * its earlier render are not named, and are read again, but its evidence
   * pages all are (writeEvidencePages reads those it keeps).
   */
  readonly sha256: ReadonlyMap<string, string>;
  /** How many of its pages and evidence pages were kept from its earlier render. */
  readonly kept: number;
}

/** What the render of the conversation `id`, whose plan is saved at `plan`, recorded beside it: its plan, its page digests and its evidence pages. */
function recordedBeside(id: string, plan: string): Recorded {
  const { pages: evidence, images } = evidenceBeside(plan);
  const pages = Object.entries(readPageDigests(pageDigestsBeside(plan))?.pages ?? {});
  const sha256 = new Map([...evidence, ...images].map(({ file, sha256 }) => [file, sha256] as const));
  for (const [file, { sha256: digest }] of pages) if (digest !== undefined) sha256.set(file, digest);
  return {
    files: [...renderedFiles(id, plan), ...evidence.map(({ file }) => file), ...images.map(({ file }) => file)],
    sha256,
    kept: pages.filter(([, { kept }]) => kept).length + evidence.filter(({ kept }) => kept).length,
  };
}

/** Where the page digests of the conversation whose plan is saved at `plan` are recorded, beside it. */
export function pageDigestsBeside(plan: string): string {
  return plan.replace(/\.json$/, '.pages.jsonl');
}

/** The page digests recorded beside a plan; none when there are none or they cannot be read. */
export function readPageDigests(file: string): PageDigests | undefined {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // The last piece is what follows the last newline: nothing, or a line cut short.
    const [head, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    if (typeof head?.code !== 'string') return undefined;
    const digests: PageDigests = { code: head.code, pages: {} };
    for (const { page, digest, kept, sha256 } of pages) {
      if (typeof page === 'string' && typeof digest === 'string') (digests.pages as Record<string, PageDigests['pages'][string]>)[page] = { digest, kept: kept === true, ...(typeof sha256 === 'string' ? { sha256 } : {}) };
    }
    return digests;
  } catch {
    return undefined;
  }
}
