// The export folder: the bundle (the storage layout of the chosen
// conversations) and, beside it, the manifest that proves every byte.
//
//   <out>/bundle/<session>/streams/…/*.jsonl, *.sd     landed evidence and its normalised form
//   <out>/bundle/<session>/runs/…
//   <out>/bundle/_conversations/<id>/rounds/*.sf        the round chain
//   <out>/bundle/_conversations/<id>/branches/, labels/ explicit branches and labels
//   <out>/site/index.html, c/, b/, s/ …                  the static site, built from <out>/bundle alone
//   <out>/manifest.json, manifest-sha256.txt, root-digest.txt
//
// Only what re-verifies and re-derives the conversation travels: cursors,
// locks, the derived index and the mutable state files stay behind (they name
// source paths and wall-clock times and prove nothing). So the same evidence
// exported twice gives the same files.
//
// The export is written beside the target and renamed into place at the end,
// so an interruption leaves the earlier export untouched. Files that did not
// change since the previous export into the same folder are hard links to it,
// with their digests taken from it (reuse.ts).

import fs from 'node:fs';
import path from 'node:path';
import { KnownFolders } from '../files/atomic-file.ts';
import { listFolder } from '../files/folders.ts';
import { FolderRemover } from '../files/folder-remover.ts';
import type { StampsRecord } from '../files/file-stamp.ts';
import { recoverWhatEndedProcessesLeft } from '../files/process.ts';
import { refusedWriteCode } from '../files/write-failure.ts';
import type { SiteResult } from '../site/generator/site.ts';
import type { WaitingRenderer } from '../site/generator/renderer-child.ts';
import { BUNDLE, compareBytes, SITE, conversationOwning, digestFiles, digestListed, MANIFEST, META_FILES, unsafePath, writeManifest, type Manifest, type ManifestEntry } from '../bundle/manifest.ts';
import { recordFolders } from './folder-record.ts';
import { ExportReuse } from '../bundle/reuse.ts';
import { conversationFiles, conversationInput, exportPathOf } from '../bundle/conversation-files.ts';
import { UNOBSERVED, type StepObserver } from '../bundle/steps.ts';
import { applyRedaction } from '../redaction/apply.ts';
import type { RedactionPlan } from '../redaction/scan.ts';

/**
 * The file every export writes at its top, listed in its manifest like any
 * other: what tells an earlier export of this tool, which the next export
 * into the folder may replace, from a folder of anyone's (destination.ts).
 */
export const EXPORT_MARKER = '.sessionizer-export';
export const EXPORT_MARKER_SCHEMA = 'sessionizer-export/1';
const EXPORT_MARKER_TEXT = `${EXPORT_MARKER_SCHEMA}\nThis folder is an export written by Sessionizer. The next export into it replaces it whole;\nan export refuses a folder that holds anything else (docs/export-folder.md).\n`;

export interface ExportOptions {
  /** Build the static site into <out>/site; on by default. */
  readonly site?: boolean;
  /** Where the site's finished pages are cached between exports; by default <data>/_site-cache, outside every export. */
  readonly siteCache?: string;
  readonly observer?: StepObserver;
  /** Secrets to take out of the copied bundle, found beforehand (src/redaction/scan.ts). */
  readonly redaction?: RedactionPlan;
  /**
   * Where the earlier export, moved aside, is removed in the background while
   * the caller goes on (with the archive, say); the caller waits for it with
   * `removed`. Without it, the export returns once the earlier one is removed.
   */
  readonly earlier?: EarlierExports;
  /** A renderer child started as the export began, for the site step's first child (SiteOptions.waitingRenderer); the caller stops it once the export ends. */
  readonly waitingRenderer?: WaitingRenderer;
  /**
   * The conversations that changed since they were last exported, as far as
   * the caller knows (those the parse step added to): their files are placed
   * first, and the waiting renderer child is given them to render while the
   * rest of the bundle is placed (renderAhead, site/generator/site.ts).
   */
  readonly changed?: ReadonlySet<string>;
}

export interface ExportResult {
  readonly out: string;
  readonly conversations: string[];
  readonly rootDigest: string;
  readonly files: number;
  readonly bytes: number;
  /** Files linked from the previous export unchanged, and files copied from the storage zone. */
  readonly reused: number;
  readonly copied: number;
  readonly site?: SiteResult;
  /** The SHA-256 of every file the manifest lists, by path: for the archive, which need not read a file again to know what it holds. */
  readonly digests: ReadonlyMap<string, string>;
  /** Every file the manifest lists, with its size: for the archive, which need not walk the export again. */
  readonly listed: readonly ManifestEntry[];
}

export async function writeExport(data: string, out: string, conversations: readonly string[], options: ExportOptions = {}): Promise<ExportResult> {
  for (const conversation of conversations) {
    if (conversation.includes('/') || unsafePath(conversation)) throw new Error(`conversation ${JSON.stringify(conversation)}: not a name a storage zone can hold`);
  }
  // The record of reuse is saved once this process's earlier export into `out` is removed (completeExport).
  await options.earlier?.removing(out);
  recoverInterruptedExports(out);
  const partial = partialFolder(out);
  fs.rmSync(partial, { recursive: true, force: true });
  const observer = options.observer ?? UNOBSERVED;
  const reuse = ExportReuse.load(data, out);
  const place = (conversation: string): string[] =>
    conversationFiles(data, conversation).map(({ source, relative }) => {
      observer.advance(1, reuse.place(source, partial, exportPathOf(relative)));
      return exportPathOf(relative);
    });
  // The digests of the files of the conversations rendered ahead, taken once they are placed.
  let digestedAhead = new Map<string, string>();
  try {
    observer.step('bundle');
    // A redaction rewrites the bundle once it is placed, so nothing is rendered from it before.
    const ahead = options.redaction === undefined && options.site !== false && options.waitingRenderer !== undefined ? conversations.filter((conversation) => options.changed?.has(conversation)) : [];
    if (ahead.length > 0) {
      digestedAhead = digestListed(partial, ahead.flatMap(place), reuse.knownOfPlaced().digests);
      const inputs = conversationInputs(digestedAhead, ahead);
      // Loaded here, not at the top: Astro and shiki would otherwise load with every command.
      const { renderAhead } = await import('../site/generator/site.ts');
      renderAhead(path.join(partial, BUNDLE), options.siteCache ?? siteCacheOf(data), inputs, options.waitingRenderer!);
    }
    const placedAhead = new Set(ahead);
    for (const conversation of conversations) if (!placedAhead.has(conversation)) place(conversation);
    if (options.redaction) {
      // Before anything reads the bundle: the digests, the site, the manifest
      // and the archive see only redacted bytes.
      observer.step('redact');
      applyRedaction(path.join(partial, BUNDLE), options.redaction);
    }
    const known = reuse.knownOfPlaced();
    return await completeExport(partial, out, conversations, { digests: new Map([...known.digests, ...digestedAhead]), sizes: known.sizes }, options.siteCache ?? siteCacheOf(data), options, (entries) => ({
      reused: reuse.reused,
      copied: reuse.copied,
      stamps: reuse.stampsRecord(entries),
      recordFolders: (swapped) => recordFolders(data, out, [...entries.map((entry) => entry.path), ...META_FILES], swapped),
    }));
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** Where the site's finished pages are cached between exports, by default: beside the storage zone, outside every export. */
export function siteCacheOf(data: string): string {
  return path.join(data, '_site-cache');
}

/** Several exports could not be put together: two of them hold one conversation with different files. */
export class MergeConflictError extends Error {}

/**
 * One export from several (a large history exported in parts, by session, on
 * several machines): the bundles put together by their manifests, and the
 * site, manifest and root digest made anew over all of them. The callers
 * verify every input first; their manifests' digests are then taken as they
 * are, and a path held by two inputs must have the same digest in both.
 */
export async function mergeExports(inputs: readonly string[], out: string, siteCache: string, options: ExportOptions = {}): Promise<ExportResult> {
  await options.earlier?.removing(out);
  recoverInterruptedExports(out);
  const partial = partialFolder(out);
  fs.rmSync(partial, { recursive: true, force: true });
  const observer = options.observer ?? UNOBSERVED;
  const known = new Map<string, string>();
  const sizes = new Map<string, number>();
  // A conversation is the unit a history is split by, so each must come
  // whole from one export, or be the same in every export that holds it. Two
  // storage zones landing one session give it different files (landed names
  // carry the time they were landed), and their union would be two chains.
  const holders = new Map<string, { input: string; files: string }>();
  const folders = new KnownFolders();
  try {
    observer.step('bundle');
    for (const input of inputs) {
      const manifest = JSON.parse(fs.readFileSync(path.join(input, MANIFEST), 'utf8')) as Manifest;
      const owned = new Map<string, ManifestEntry[]>();
      for (const entry of manifest.files) {
        const conversation = conversationOwning(entry.path);
        if (conversation === undefined) continue;
        const list = owned.get(conversation);
        if (list === undefined) owned.set(conversation, [entry]);
        else list.push(entry);
      }
      for (const [conversation, entries] of owned) {
        const files = entries.map((entry) => `${entry.sha256}  ${entry.path}\n`).join('');
        const before = holders.get(conversation);
        if (before !== undefined) {
          if (before.files !== files) throw new MergeConflictError(`conversation ${conversation}: ${before.input} and ${input} hold different evidence for it; split a history by conversation, so that each is exported from one storage zone`);
          continue;
        }
        holders.set(conversation, { input, files });
        for (const entry of entries) {
          folders.ensure(path.dirname(path.join(partial, entry.path)));
          fs.copyFileSync(path.join(input, entry.path), path.join(partial, entry.path));
          known.set(entry.path, entry.sha256);
          sizes.set(entry.path, entry.size);
          observer.advance(1, entry.size);
        }
      }
    }
    const conversations = listFolder(path.join(partial, BUNDLE, '_conversations')).sort(compareBytes);
    return await completeExport(partial, out, conversations, { digests: known, sizes }, siteCache, options, () => ({ reused: 0, copied: known.size }));
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** What every export does once its bundle is in place: digests, the site, the manifest, and the swap into place. */
async function completeExport(
  partial: string,
  out: string,
  conversations: readonly string[],
  /** The digests and sizes of the bundle's files already known, by path in the export. */
  known: { readonly digests: ReadonlyMap<string, string>; readonly sizes: ReadonlyMap<string, number> },
  siteCache: string,
  options: ExportOptions,
  /**
   * What the export's placing of files came to, once it is swapped into
   * place: its counts, its record of stamps, and what records its folders,
   * given when the swap was (Date.now, in nanoseconds, just before it).
   */
  replaced: (entries: ManifestEntry[]) => { reused: number; copied: number; stamps?: StampsRecord; recordFolders?: (swapped: bigint) => void },
): Promise<ExportResult> {
  const observer = options.observer ?? UNOBSERVED;
  const bundle = path.join(partial, BUNDLE);
  fs.mkdirSync(bundle, { recursive: true });
  // The bundle's digests come first: they are what the site's cache of
  // finished pages is keyed by, and the manifest reuses them.
  observer.step('digest');
  const digests = digestFiles(partial, BUNDLE, known.digests, (bytes) => observer.advance(1, bytes));
  // The site is a pure function of the bundle: it reads nothing else, and
  // it is written before the manifest so that every page is covered.
  let site: SiteResult | undefined;
  if (options.site !== false) {
    observer.step('site');
    // Loaded here, not at the top: Astro and shiki would otherwise load with every command.
    const { buildSite } = await import('../site/generator/site.ts');
    site = await buildSite(bundle, path.join(partial, SITE), siteCache, { inputs: conversationInputs(digests, conversations), observer, waitingRenderer: options.waitingRenderer });
  }
  observer.step('manifest');
  fs.writeFileSync(path.join(partial, EXPORT_MARKER), EXPORT_MARKER_TEXT);
  // The site's digests were taken as its pages were kept, or kept with them, and its sizes from their stamps.
  const everyDigest = withSite(digests, site?.digests);
  // The bundle was walked for its digests, and nothing was written in it since.
  const { entries, ...manifest } = writeManifest(partial, everyDigest, (bytes) => observer.advance(1, bytes), { sizes: withSite(known.sizes, site?.sizes), listed: { under: BUNDLE, files: [...digests.keys()] } });
  // Swap in the new export; the earlier one goes only once the new one is whole.
  observer.step('replace');
  const previous = previousFolder(out);
  const earlier = options.earlier ?? new EarlierExports();
  await earlier.removing(out);
  const moved = fs.existsSync(out);
  if (moved) fs.renameSync(out, previous);
  const swapped = BigInt(Date.now()) * 1_000_000n;
  try {
    fs.renameSync(partial, out);
  } catch (error) {
    // The earlier export goes back where it was; the caller removes this one.
    if (moved) fs.renameSync(previous, out);
    throw error;
  }
  const { stamps: reuseStamps, recordFolders: recordFoldersOfExport, ...counts } = replaced(entries);
  // The record of reused files and the stamps of the site's kept pages are
  // settled once the earlier export is gone: removing its hard links moves
  // the change times of every file the two share (files/file-stamp.ts).
  const records = [reuseStamps, site?.keptPageStamps].filter((record) => record !== undefined);
  if (!moved) earlier.settleNow(out, records);
  else earlier.remove(out, previous, records);
  // While the earlier export is removed, which is the longer to wait for.
  // A record that cannot be written (a full data folder) costs the next
  // export a listing of this one, and does not undo an export in place.
  try {
    recordFoldersOfExport?.(swapped);
  } catch (error) {
    if (refusedWriteCode(error) === undefined) throw error;
    earlier.tell(unrecorded(out, (error as Error).message));
  }
  if (options.earlier === undefined) await earlier.removed();
  return { out, conversations: [...conversations], ...manifest, ...counts, ...(site ? { site } : {}), digests: everyDigest, listed: entries };
}

/** What is known of the bundle's files and of the site's, by path in the export. */
function withSite<Value>(bundle: ReadonlyMap<string, Value>, site: ReadonlyMap<string, Value> | undefined): ReadonlyMap<string, Value> {
  return site ? new Map([...bundle, ...[...site].map(([file, value]) => [`${SITE}/${file}`, value] as const)]) : bundle;
}

/** The digest of each conversation's bundle files (conversationInput): what its site pages are a function of. */
function conversationInputs(digests: ReadonlyMap<string, string>, conversations: readonly string[]): Map<string, string> {
  const owned = new Map<string, { file: string; sha256: string }[]>(conversations.map((conversation) => [conversation, []]));
  for (const [file, sha256] of digests) owned.get(conversationOwning(file) ?? '')?.push({ file, sha256 });
  return new Map([...owned].map(([conversation, files]) => [conversation, conversationInput(files)]));
}

/**
 * The earlier exports one caller moved aside, each removed on a thread of its
 * own while the caller goes on (with the archive, say): removing thousands of
 * files is a noticeable part of a second export (bench/results/measurements-behind-choices.md). The
 * thread is started with this, before an export is moved aside
 * (files/folder-remover.ts). Each removal resolves to what went wrong, if
 * anything; a folder left behind is one of this process's `.previous-<pid>`
 * folders, which the next export removes (recoverInterruptedExports). The
 * earlier archive, moved aside as the new one takes its place, is removed
 * the same way (removeFile).
 */
export class EarlierExports {
  private readonly removals = new Map<string, Promise<string | undefined>>();
  /** What went wrong before any removal: records that could not be saved or settled. */
  private readonly problems: string[] = [];
  private readonly remover = new FolderRemover();

  /** Waits until the earlier export at `out` is removed, if one is being removed, so that its folder name is free again. */
  async removing(out: string): Promise<void> {
    await this.removals.get(previousFolder(out));
  }

  /**
   * Removes `previous`, the earlier export moved aside, and settles these
   * records of the export now at `out` once it is gone; they are saved while
   * it is removed. Their markers go first, so that none settles a record
   * saved before this export. Should a record not be saved, its marker
   * settles the one before, whose stamps name the files of the earlier
   * export: those the new one shares are the same files, and the others no
   * longer match.
   */
  remove(out: string, previous: string, records: readonly StampsRecord[]): void {
    const unmarked = markersRemovedOrWhy(out, records);
    const removal = this.remover.remove(previous, unmarked === undefined ? records.map(({ marker }) => marker) : []);
    const unsaved = unmarked ?? savedOrWhy(out, records);
    this.removals.set(
      previous,
      removal.then(({ removed, failure }) => {
        if (!removed) return `${previous}: the earlier export could not be removed: ${failure}; the next export removes it`;
        return unsaved ?? (failure !== undefined ? unsettled(out, failure) : undefined);
      }),
    );
  }

  /**
   * Removes `file`, the earlier archive moved aside (bundle/archive.ts), on
   * a thread of the system's while the caller goes on; should it stay, the
   * next archive into the same place removes it.
   */
  removeFile(file: string): void {
    this.removals.set(
      file,
      fs.promises.rm(file, { force: true }).then(
        () => undefined,
        (error: Error) => `${file}: the earlier archive could not be removed: ${error.message}; the next archive into its place removes it`,
      ),
    );
  }

  /** Something that could not be done for the export now in place, said with what `removed` returns. */
  tell(problem: string): void {
    this.problems.push(problem);
  }

  /** Saves and settles these records of the export now at `out`, which replaced no earlier export. */
  settleNow(out: string, records: readonly StampsRecord[]): void {
    let why = markersRemovedOrWhy(out, records) ?? savedOrWhy(out, records);
    if (why === undefined) {
      try {
        for (const { marker } of records) fs.writeFileSync(marker, '');
      } catch (error) {
        why = unsettled(out, (error as Error).message);
      }
    }
    if (why !== undefined) this.problems.push(why);
  }

  /** Waits until every earlier export moved aside is removed, and ends the thread that removed them; returns what could not be done. */
  async removed(): Promise<string[]> {
    const failures = await Promise.all(this.removals.values());
    this.removals.clear();
    this.remover.close();
    return [...this.problems.splice(0), ...failures.filter((failure) => failure !== undefined)];
  }
}

/** Removes the marker of each record (files/file-stamp.ts); says why when it cannot. */
function markersRemovedOrWhy(out: string, records: readonly StampsRecord[]): string | undefined {
  try {
    for (const { marker } of records) fs.rmSync(marker, { force: true });
    return undefined;
  } catch (error) {
    return unrecorded(out, (error as Error).message);
  }
}

/** Saves each record; says why when it cannot. */
function savedOrWhy(out: string, records: readonly StampsRecord[]): string | undefined {
  try {
    for (const record of records) record.save();
    return undefined;
  } catch (error) {
    return unrecorded(out, (error as Error).message);
  }
}

function unsettled(out: string, why: string): string {
  return unrecorded(out, `its records could not be settled: ${why}`);
}

function unrecorded(out: string, why: string): string {
  return `${out}: what the next export reuses could not be recorded (${why}); the next export copies the files or reads the kept pages that record would have spared it`;
}

/** Where this process moves the earlier export at `out` while the new one takes its place (see recoverInterruptedExports). */
function previousFolder(out: string): string {
  return `${out}.previous-${process.pid}`;
}

/** Where this process writes the export before swapping it in at `out`. */
function partialFolder(out: string): string {
  return `${out}.partial-${process.pid}`;
}

const LEFT_BY = /^(.*)\.(partial|previous)-(\d+)$/;

/**
 * Tidies what an export that died left beside `out` (a crash, a kill, an
 * interruption: Ctrl-C ends the process at once, which is safe because every
 * step before the swap writes only new files): a half-written export is removed, and an earlier export that
 * was moved aside for the swap and never removed is put back when nothing
 * took its place. Folders of a process still running are left to it.
 */
export function recoverInterruptedExports(out: string): void {
  recoverWhatEndedProcessesLeft(out, (name) => {
    const left = LEFT_BY.exec(name);
    return left !== null && left[1] === path.basename(out) ? { pid: Number(left[3]), earlier: left[2] === 'previous' } : undefined;
  });
}
