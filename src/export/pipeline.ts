// The one sequence of an export: collect, parse, (scan for secrets), the
// bundle, the site, the manifest and the archive, and the same for a merge
// of exports made apart (verify, bundle, site, manifest, archive).
//
// The command (src/cli/commands/export.ts) turns its options into a request,
// draws the steps this reports to its observer, and prints the outcome; it
// decides nothing here. What happens along the way that a person should hear
// of is told as it happens, as an ExportEvent, so that it is printed between
// the steps it belongs to.

import fs from 'node:fs';
import type { Adapter, SessionMatcher, SourceRoot, UnreadableSource } from '../adapters/adapter.ts';
import { converterFor } from '../adapters/dialects.ts';
import { writeArchive, type ArchiveResult } from '../bundle/archive.ts';
import { frameIndexOf } from '../bundle/archive-frames.ts';
import type { StepObserver } from '../bundle/steps.ts';
import { collectAllOnCores, landedTotals, notLanded, sessionErrors, unreadableSources, type NotLanded } from '../collection/collect-all.ts';
import { storedSessions } from '../landing/session-folder.ts';
import { sessionsOfSource } from '../collection/source-sessions.ts';
import { defaultThreads } from '../cores/work-on-cores.ts';
import { listFolder } from '../files/folders.ts';
import { removeLeftoversOfDataFolder } from '../files/process.ts';
import { dataFolderHolder, DataFolderLockedError, lockDataFolder } from '../landing/lock.ts';
import { parseSessionsOnCores } from '../parse/parallel.ts';
import { mediaLeftOut, redactionReport, type RedactionReport } from '../redaction/report.ts';
import type { RuleSet } from '../redaction/rules.ts';
import { scanForSecrets, type RedactionPlan } from '../redaction/scan.ts';
import { WaitingRenderer } from '../site/generator/renderer-child.ts';
import { verifyExportFiles } from '../verify/export.ts';
import { claimDataFolder } from './data-folder.ts';
import { refusalOf, type ExportPlaces } from './destination.ts';
import { refusedWriteMessage, StepWatch } from './refused-write.ts';
import { EarlierExports, mergeExports, MergeConflictError, siteCacheOf, writeExport, type ExportResult } from './export-folder.ts';

export interface ExportDestination {
  /** The data folder: read by an export, and where the site's cache and the archive's frame index are kept. */
  readonly data: string;
  readonly out: string;
  /** Where to write the export as one .tar.zst as well, if anywhere. */
  readonly archive: string | undefined;
}

export interface ExportRequest extends ExportDestination {
  readonly adapter: Adapter;
  readonly source: SourceRoot;
  /** The conversations asked for by name; else those of the sessions under the source, or with `all` every stored one. */
  readonly conversations: readonly string[] | undefined;
  readonly all: boolean;
  readonly selected: SessionMatcher;
  /** Take secrets out of the exported copy, and images and documents unless `keepImages`; with `dryRun`, only find them. */
  readonly redaction: { readonly rules: RuleSet; readonly paths: boolean; readonly dryRun: boolean; readonly keepImages?: boolean } | undefined;
}

/** What a person should hear of while an export runs, in the order it happens. */
export type ExportEvent =
  /** The data folder is the export's own, and the first step begins. */
  | { readonly type: 'started' }
  | { readonly type: 'collection error'; readonly message: string }
  /** Something discovery found that hid part of the source other than a failed read (those are the outcome's `unreadable`). */
  | { readonly type: 'source warning'; readonly message: string }
  | { readonly type: 'unknown conversation'; readonly conversation: string; readonly data: string }
  /** A round chain that could not be extended: the conversation is still exported as it was. */
  | { readonly type: 'chain error'; readonly message: string }
  /** A conversation that could not be parsed (its `.sd` gone and not derivable again, say) is left out, so that one bad session does not cost the export of all the others. */
  | { readonly type: 'left out'; readonly conversation: string; readonly message: string }
  /** A conversation whose parse could not write its round (a full disk): no export is written (ExportOutcome 'not stored'). */
  | { readonly type: 'not parsed'; readonly conversation: string; readonly message: string }
  /** A last line without its newline, which is not in this export. */
  | { readonly type: 'write in progress'; readonly session: string; readonly source: string; readonly message: string | undefined }
  /** `media`: how many of the findings are images and documents left out whole. */
  | { readonly type: 'secrets found'; readonly totals: RedactionReport['totals']; readonly media: number }
  | { readonly type: 'merge input problem'; readonly input: string; readonly path: string; readonly what: string }
  /** The earlier export or archive, moved aside, could not be removed; the next export removes it. */
  | { readonly type: 'earlier export left'; readonly message: string };

export interface ExportHooks {
  readonly observer: StepObserver;
  readonly tell: (event: ExportEvent) => void;
}

/** What an export ended with. Only `written` wrote an export; `rejected` says whether something went wrong all the same. */
export type ExportOutcome =
  /** The places given are not safe to write (destination.ts); nothing was read or written. */
  | { readonly type: 'refused'; readonly reason: string }
  /** Another export holds the data folder. */
  | { readonly type: 'locked'; readonly message: string }
  /** A conversation asked for by name has nothing landed; each was told as an event. */
  | { readonly type: 'unknown conversations' }
  /**
   * Sessions that could not be landed, or conversations whose round could
   * not be written: what the export would hold lacks them, so none is
   * written and the earlier export is left as it was. Each was told as an
   * event; what did land stays, and the next export lands the rest.
   */
  | { readonly type: 'not stored'; readonly notLanded: readonly NotLanded[]; readonly notParsed: readonly NotParsed[]; readonly landed: ReturnType<typeof landedTotals> }
  | { readonly type: 'dry run'; readonly report: RedactionReport; readonly rejected: boolean; readonly unreadable: readonly UnreadableSource[] }
  | { readonly type: 'written'; readonly result: ExportResult; readonly archive: ArchiveResult | undefined; readonly rejected: boolean; readonly counts: ExportCounts }
  | NotWritten;

/**
 * A write the file system refused (a full disk, a read-only folder) stopped
 * the export: `message` is one line naming the file or folder, what was
 * left, and what to do (refused-write.ts). What this run half-wrote is
 * removed; an earlier export or archive is left as it was.
 */
export interface NotWritten {
  readonly type: 'not written';
  readonly message: string;
}

/** A conversation whose parse could not write its round, with why. */
export interface NotParsed {
  readonly conversation: string;
  readonly message: string;
  /** The code of the write the file system refused. */
  readonly refused: string;
}

export interface ExportCounts {
  readonly landed: ReturnType<typeof landedTotals>;
  readonly newRounds: number;
  readonly unchangedConversations: number;
  /** Conversations the data folder holds that are not of sessions under the source, and so were not exported. */
  readonly otherConversations: number;
  readonly redacted: RedactionReport['totals'] | undefined;
  /** Every folder and file under the source that could not be read: what they hold is not in the export, which is incomplete. */
  readonly unreadable: readonly UnreadableSource[];
}

export type MergeOutcome =
  | { readonly type: 'refused'; readonly reason: string }
  | { readonly type: 'locked'; readonly message: string }
  /** An input did not verify; every problem was told as an event. */
  | { readonly type: 'inputs rejected' }
  | { readonly type: 'conflict'; readonly message: string }
  | { readonly type: 'written'; readonly result: ExportResult; readonly archive: ArchiveResult | undefined }
  | NotWritten;

// No handler for Ctrl-C: it ends the process at once, like a crash, and
// both are safe. The storage zone is written only write-once, the earlier
// export is replaced by a rename only once the new one is whole, and the next
// export removes what this one left (recoverInterruptedExports). A handler
// would run only between steps, since most of them do not yield.

/** Collects, parses and exports the chosen conversations of `request.data` into `request.out`, and archives the export when asked to. */
export async function exportConversations(request: ExportRequest, hooks: ExportHooks): Promise<ExportOutcome> {
  const watch = new StepWatch(hooks.observer);
  // A dry run of the redaction renders nothing.
  const renders = request.redaction?.dryRun !== true;
  return withDestination({ ...request, source: request.source.root }, watch, renders, (waitingRenderer) => collectAndExport(request, waitingRenderer, { ...hooks, observer: watch }));
}

/** One export from exports made apart, each verified first, put together by their manifests; nothing is collected. */
export async function mergeExportFolders(inputs: readonly string[], destination: ExportDestination, hooks: ExportHooks): Promise<MergeOutcome> {
  const watch = new StepWatch(hooks.observer);
  return withDestination({ ...destination, merged: inputs }, watch, true, (waitingRenderer) => verifyAndMerge(inputs, destination, waitingRenderer, { ...hooks, observer: watch }));
}

/**
 * Runs an export once its places are known to be safe to write
 * (destination.ts) and its data folder is its own, with a renderer child
 * started first when the export `renders` and a renderer is kept for the
 * current code (WaitingRenderer): it loads the renderer while the export
 * collects and parses, and renders the site's pages when they are due. It
 * is stopped, and its end awaited, whenever the export ends without giving
 * it work: an error in any step, an outcome with no site, a site placed
 * whole from the cache. A signal ends it with this process (site/generator/child.ts).
 * A second export at once on one data folder is refused rather
 * than made to wait: it would export what the first one is writing, so it is
 * run again when the first has finished, by whoever started it.
 */
async function withDestination<Outcome>(places: ExportPlaces, watch: StepWatch, renders: boolean, run: (waitingRenderer: WaitingRenderer | undefined) => Promise<Outcome>): Promise<Outcome | { type: 'refused'; reason: string } | { type: 'locked'; message: string } | NotWritten> {
  const refusal = refusalOf(places);
  if (refusal !== undefined) {
    // Checked before the lock is taken, so as to write nothing into a folder
    // that is refused: a collector of an export already running leaves a
    // session folder empty for a moment before it locks it, which is that
    // export's work, not the folder's fault.
    const holder = dataFolderHolder(places.data);
    if (holder !== undefined) return { type: 'locked', message: new DataFolderLockedError(places.data, holder).message };
    return { type: 'refused', reason: refusal };
  }
  const earlier = { out: listFolder(places.out).length > 0, archive: places.archive !== undefined && fs.existsSync(places.archive) };
  const notWritten = (error: unknown): NotWritten => {
    const message = refusedWriteMessage(error, places, watch.current, earlier);
    if (message === undefined) throw error;
    return { type: 'not written', message };
  };
  let lock;
  try {
    lock = lockDataFolder(places.data);
  } catch (error) {
    if (!(error instanceof DataFolderLockedError)) return notWritten(error);
    return { type: 'locked', message: error.message };
  }
  try {
    // Accepted above; marked once it is the export's own.
    claimDataFolder(places.data, 'create');
    removeLeftoversOfDataFolder(places.data);
    const waitingRenderer = renders ? WaitingRenderer.start() : undefined;
    // The site's modules, which the export loads only when it renders, are
    // loaded now, beside the collect step, whose work runs on workers: the
    // bundle step gives its renderer child its first work through them.
    if (waitingRenderer !== undefined) import('../site/generator/site.ts').catch(() => undefined);
    try {
      return await run(waitingRenderer);
    } finally {
      await waitingRenderer?.dismiss();
    }
  } catch (error) {
    return notWritten(error);
  } finally {
    lock.release();
  }
}

async function collectAndExport(request: ExportRequest, waitingRenderer: WaitingRenderer | undefined, { observer, tell }: ExportHooks): Promise<ExportOutcome> {
  const { data, adapter } = request;
  tell({ type: 'started' });
  observer.step('collect');
  const discovery = adapter.discover(request.source.root);
  const report = await collectAllOnCores({
    data,
    adapter,
    discovery,
    selected: request.selected,
    // On workers alone, as the parse step is (parse/parallel.ts): a young
    // generation this thread grew would stay resident through every later
    // step, the site's beside the evidence worker.
    workersOnly: true,
    onSession(outcome) {
      let landed = 0;
      for (const item of outcome.sources) for (const file of item.landed) landed += file.sourceBytes;
      observer.advance(1, landed);
    },
  });
  const errors = report.sessions.flatMap(sessionErrors);
  for (const message of errors) tell({ type: 'collection error', message });
  for (const message of discovery.warnings) tell({ type: 'source warning', message });
  const failedToLand = report.sessions.flatMap(notLanded);
  if (failedToLand.length > 0) return { type: 'not stored', notLanded: failedToLand, notParsed: [], landed: landedTotals(report) };
  // A source that could not be read is not a failure to land: the export is still written, from what could be read, and says it is incomplete.
  const unreadable = unreadableSources(discovery, report);
  let rejected = errors.length > 0 || unreadable.length > 0;
  const stored = storedSessions(data);
  const ofSource = sessionsOfSource(data, request.source.root);
  const chosen = request.conversations !== undefined ? [...request.conversations] : request.all ? stored : stored.filter((id) => ofSource.has(id));
  const otherConversations = request.conversations === undefined && !request.all ? stored.length - chosen.length : 0;
  const unknown = chosen.filter((id) => !stored.includes(id));
  for (const conversation of unknown) tell({ type: 'unknown conversation', conversation, data });
  if (unknown.length > 0) return { type: 'unknown conversations' };
  observer.step('parse');
  let newRounds = 0;
  let unchangedConversations = 0;
  const leftOut = new Set<string>();
  const notParsed: NotParsed[] = [];
  const changed = new Set<string>();
  for (const parsed of await parseSessionsOnCores(data, chosen, { threads: defaultThreads(), onSession: () => observer.advance(1, 0) })) {
    if (parsed.round !== undefined) newRounds++;
    if (parsed.unchanged) unchangedConversations++;
    if (parsed.failure === undefined) {
      if (!parsed.unchanged) changed.add(parsed.session);
      continue;
    }
    if (parsed.failure.refused !== undefined) {
      tell({ type: 'not parsed', conversation: parsed.session, message: parsed.failure.message });
      notParsed.push({ conversation: parsed.session, message: parsed.failure.message, refused: parsed.failure.refused });
    } else if (parsed.failure.chain) {
      tell({ type: 'chain error', message: parsed.failure.message });
    } else {
      tell({ type: 'left out', conversation: parsed.session, message: parsed.failure.message });
      leftOut.add(parsed.session);
    }
    rejected = true;
  }
  if (notParsed.length > 0) return { type: 'not stored', notLanded: [], notParsed, landed: landedTotals(report) };
  const exported = chosen.filter((session) => !leftOut.has(session));
  // Said after every error, with why.
  for (const session of report.sessions) for (const source of session.sources) if (source.inFlightBytes > 0) tell({ type: 'write in progress', session: session.session, source: source.source, message: source.message });
  let redaction: RedactionPlan | undefined;
  let redacted: RedactionReport['totals'] | undefined;
  if (request.redaction) {
    observer.step('scan');
    redaction = await scanForSecrets(data, exported, { rules: request.redaction.rules, paths: request.redaction.paths, keepImages: request.redaction.keepImages === true, converterFor });
    const found = redactionReport(redaction);
    redacted = found.totals;
    if (request.redaction.dryRun) return { type: 'dry run', report: found, rejected, unreadable };
    tell({ type: 'secrets found', totals: found.totals, media: mediaLeftOut(found) });
  }
  const earlier = new EarlierExports();
  let result: ExportResult;
  try {
    result = await writeExport(data, request.out, exported, { observer, redaction, earlier, waitingRenderer, changed });
  } catch (error) {
    // Nothing was moved aside; the thread that would have removed it ends.
    await earlier.removed();
    throw error;
  }
  const archive = await archiveAndTidy(request, result, earlier, { observer, tell });
  return { type: 'written', result, archive, rejected, counts: { landed: landedTotals(report), newRounds, unchangedConversations, otherConversations, redacted, unreadable } };
}

async function verifyAndMerge(inputs: readonly string[], destination: ExportDestination, waitingRenderer: WaitingRenderer | undefined, { observer, tell }: ExportHooks): Promise<MergeOutcome> {
  tell({ type: 'started' });
  observer.step('verify');
  let rejected = false;
  for (const input of inputs) {
    const report = verifyExportFiles(input, {});
    for (const problem of report.problems) tell({ type: 'merge input problem', input, path: problem.path, what: problem.what });
    if (report.problems.length > 0 || report.rootDigest === undefined) rejected = true;
    observer.advance(1, report.bytes);
  }
  if (rejected) return { type: 'inputs rejected' };
  const earlier = new EarlierExports();
  let result: ExportResult;
  try {
    result = await mergeExports(inputs, destination.out, siteCacheOf(destination.data), { observer, earlier, waitingRenderer });
  } catch (error) {
    await earlier.removed();
    if (!(error instanceof MergeConflictError)) throw error;
    return { type: 'conflict', message: error.message };
  }
  const archive = await archiveAndTidy(destination, result, earlier, { observer, tell });
  return { type: 'written', result, archive };
}

/** The archive, when asked for; then waits for the earlier export moved aside to be removed. */
async function archiveAndTidy(destination: ExportDestination, result: ExportResult, earlier: EarlierExports, { observer, tell }: ExportHooks): Promise<ArchiveResult | undefined> {
  try {
    return destination.archive !== undefined ? await writeArchive(destination.out, destination.archive, { observer, reuse: { index: frameIndexOf(destination.data, destination.archive), digests: result.digests }, listed: result.listed, removeEarlier: (file) => earlier.removeFile(file) }) : undefined;
  } finally {
    // Whether or not the archive could be written, the export moved aside is removed before the command ends.
    for (const message of await earlier.removed()) tell({ type: 'earlier export left', message });
  }
}
