// `sessionizer export [--source DIR] [--data DIR] [--out DIR] [--conversation ID]... [--all]
//   [--redact [--redact-rules FILE] [--redact-paths] [--dry-run]]`:
// collect, parse, and write the export folder with its manifest and root
// digest. It holds the conversations of the sessions under the source, or
// every one the data folder holds with --all, or those named with
// --conversation. `npm run export` runs exactly this. With --redact, the secrets of
// the exported copy are found first and removed from it (src/redaction/);
// with --dry-run the findings are printed and no export is written.
//
// `sessionizer export --merge EXPORT --merge EXPORT ... [--out DIR]`: one
// export from exports made apart (a large history split by session across
// machines), each verified, put together by their manifests.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import { type SessionMatcher, type SourceRoot } from '../../adapters/adapter.ts';
import path from 'node:path';
import { converterFor } from '../../adapters/dialects.ts';
import { writeArchive } from '../../bundle/archive.ts';
import { frameIndexOf } from '../../bundle/archive-frames.ts';
import { earlierExportsRemoved, mergeExports, MergeConflictError, siteCacheOf, writeExport, type ExportResult } from '../../export/export-folder.ts';
import { collectAllOnCores, landedTotals, sessionErrors, storedSessions } from '../../collection/collect-all.ts';
import type { SessionOutcome } from '../../collection/collector.ts';
import { defaultThreads } from '../../cores/work-on-cores.ts';
import { parseSessionsOnCores } from '../../parse/parallel.ts';
import { redactionReport, reportText, type RedactionReport } from '../../redaction/report.ts';
import { ruleSet, RulesFileError } from '../../redaction/rules.ts';
import { scanForSecrets, type RedactionPlan } from '../../redaction/scan.ts';
import { startWaitingRenderer, type WaitingRenderer } from '../../site/generator/kept-renderer.ts';
import { verifyExport } from '../../verify/export.ts';
import { command, DATA_OPTION, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, SOURCE_OPTIONS, UsageError, type Given, type Io } from '../command.ts';
import { refusalOf, type ExportPlaces } from '../../export/destination.ts';
import { sessionsOfSource } from '../../collection/source-sessions.ts';
import { DataFolderLockedError, lockDataFolder } from '../../landing/lock.ts';
import { removeLeftoversOfDataFolder } from '../../files/process.ts';
import { megabytes } from '../progress.ts';
import { StepClock } from '../step-clock.ts';

const OPTIONS = {
  ...SOURCE_OPTIONS,
  data: DATA_OPTION,
  out: { type: 'string', value: 'DIR', default: 'export', description: 'the export folder to write' },
  archive: { type: 'string', value: 'FILE', description: 'also write the export folder as one .tar.zst' },
  conversation: { type: 'string', value: 'ID', multiple: true, description: 'export only this conversation; without it, those of the sessions under the source' },
  all: { type: 'boolean', description: 'export every conversation the data folder holds, not only those of the sessions under the source' },
  merge: { type: 'string', value: 'EXPORT', multiple: true, description: 'an export folder made apart: the exports given are verified and put together, and nothing is collected' },
  redact: { type: 'boolean', description: 'find secrets in the exported copy and replace them there (never in the data folder)' },
  'redact-rules': { type: 'string', value: 'FILE', description: 'with --redact (implied): more rules, one `name /pattern/flags` a line' },
  'redact-paths': { type: 'boolean', description: 'with --redact (implied): also replace user names in home folder paths' },
  'dry-run': { type: 'boolean', description: 'with --redact: print what would be redacted and write nothing' },
  json: { type: 'boolean', description: 'print the outcome as one line of JSON' },
} as const;

export const exportCommand = command({
  name: 'export',
  summary: 'the bundle, the static site, the manifest and root digest, a .tar.zst with --archive; --redact takes secrets out of the copy; --merge puts exports made apart together',
  options: OPTIONS,
  notes: [
    'An export collects and parses first, so it is the one command most people need. --merge takes only --data, --out, --archive and --json.',
  ],
  examples: ['sessionizer export', 'sessionizer export --source ~/.claude/projects --out ~/my-export --archive ~/my-export.tar.zst --redact', 'sessionizer export --merge laptop-export --merge desktop-export --out all'],
  run: exportConversations,
});

async function exportConversations({ values }: Given<typeof OPTIONS>, io: Io): Promise<number> {
  const redact = values.redact === true || values['redact-rules'] !== undefined || values['redact-paths'] === true;
  if (values['dry-run'] && !redact) throw new UsageError('export: --dry-run only applies to --redact: it prints what would be redacted');
  if (values.all && values.conversation !== undefined) throw new UsageError('export: --all and --conversation each say which conversations to export; give one of them');
  if (values.merge !== undefined) {
    const mixed = (['source', 'include', 'exclude', 'conversation', 'all', 'redact', 'redact-rules', 'redact-paths'] as const).filter((name) => values[name] !== undefined);
    if (mixed.length > 0) throw new UsageError(`export: --merge puts finished exports together and collects nothing, so it takes no --${mixed[0]}`);
    const destination = { data: path.resolve(values.data), out: path.resolve(values.out), archive: values.archive !== undefined ? path.resolve(values.archive) : undefined, json: values.json === true };
    const inputs = values.merge.map((input) => path.resolve(input));
    return withDestination({ ...destination, merged: inputs }, io, () => withWaitingRenderer(destination.data, (waitingRenderer) => runMerge(inputs, destination, waitingRenderer, io)));
  }
  let rules;
  try {
    rules = redact ? ruleSet(values['redact-rules'] !== undefined ? path.resolve(values['redact-rules']) : undefined) : undefined;
  } catch (error) {
    if (!(error instanceof RulesFileError)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
  const request: ExportRequest = {
    source: DEFAULT_ADAPTER.resolveSourceRoot(values.source),
    data: path.resolve(values.data),
    out: path.resolve(values.out),
    archive: values.archive !== undefined ? path.resolve(values.archive) : undefined,
    conversations: values.conversation,
    all: values.all === true,
    selected: DEFAULT_ADAPTER.sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] }),
    json: values.json === true,
    redaction: rules ? { rules, paths: values['redact-paths'] === true, dryRun: values['dry-run'] === true } : undefined,
  };
  // No handler for Ctrl-C: it ends the process at once, like a crash, and
  // both are safe. The storage zone is written only write-once, the earlier
  // export is replaced by a rename only once the new one is whole, and the next
  // export removes what this one left (recoverInterruptedExports). A handler
  // would run only between steps, since most of them do not yield.
  return withDestination({ ...request, source: request.source.root }, io, () => withWaitingRenderer(request.data, (waitingRenderer) => runExport(request, waitingRenderer, io)));
}

/**
 * Runs an export once its places are known to be safe to write (destination.ts:
 * exit 2 with one line saying why not) and its data folder is its own (exit 1
 * naming the export that holds it). A second export at once on one data folder
 * is refused rather than made to wait: it would export what the first one is
 * writing, so it is run again when the first has finished, by whoever started it.
 */
async function withDestination(places: ExportPlaces, io: Io, run: () => Promise<number>): Promise<number> {
  const refusal = refusalOf(places);
  if (refusal !== undefined) {
    io.error(`sessionizer export: ${refusal}\n`);
    return EXIT_USAGE;
  }
  let lock;
  try {
    lock = lockDataFolder(places.data);
  } catch (error) {
    if (!(error instanceof DataFolderLockedError)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
  try {
    removeLeftoversOfDataFolder(places.data);
    return await run();
  } finally {
    lock.release();
  }
}

/**
 * Runs an export with a renderer child started first, when a renderer is
 * kept for this code: it loads while the export collects and parses, on
 * another core, and renders the site's pages when they are due. The child is
 * stopped whatever happens, should the site not need it.
 */
async function withWaitingRenderer(data: string, run: (waitingRenderer: WaitingRenderer | undefined) => Promise<number>): Promise<number> {
  const waitingRenderer = startWaitingRenderer({ cache: siteCacheOf(data) });
  try {
    return await run(waitingRenderer);
  } finally {
    waitingRenderer?.dismiss();
  }
}

interface Destination {
  /** The data folder: read by an export, and where the site's cache and the archive's frame index are kept. */
  readonly data: string;
  readonly out: string;
  readonly archive: string | undefined;
  readonly json: boolean;
}

interface ExportRequest extends Destination {
  readonly source: SourceRoot;
  /** The conversations chosen with --conversation; else those of the sessions under the source, or with `all` every stored one. */
  readonly conversations: string[] | undefined;
  readonly all: boolean;
  readonly selected: SessionMatcher;
  readonly redaction: { readonly rules: ReturnType<typeof ruleSet>; readonly paths: boolean; readonly dryRun: boolean } | undefined;
}

async function runExport(request: ExportRequest, waitingRenderer: WaitingRenderer | undefined, io: Io): Promise<number> {
  const { data, out, json } = request;
  if (!json) io.error(`${DEFAULT_ADAPTER.describeSourceRoot(request.source)}\ndata ${data}\n`);
  const started = performance.now();
  const drawn = io.interactive && !json;
  const clock = new StepClock(drawn, drawn ? io.error : undefined);
  clock.step('collect');
  const report = await collectAllOnCores({
    data,
    adapter: DEFAULT_ADAPTER,
    discovery: DEFAULT_ADAPTER.discover(request.source.root),
    selected: request.selected,
    onSession(outcome) {
      let landed = 0;
      for (const item of outcome.sources) for (const file of item.landed) landed += file.sourceBytes;
      clock.advance(1, landed);
    },
  });
  const errors = report.sessions.flatMap(sessionErrors);
  for (const error of errors) io.error(`error: ${error}\n`);
  let rejected = errors.length > 0;
  const stored = storedSessions(data);
  const ofSource = sessionsOfSource(data, request.source.root);
  const chosen = request.conversations ?? (request.all ? stored : stored.filter((id) => ofSource.has(id)));
  const others = request.conversations === undefined && !request.all ? stored.length - chosen.length : 0;
  const unknown = chosen.filter((id) => !stored.includes(id));
  for (const id of unknown) io.error(`error: conversation ${id}: nothing is landed for it in ${data}\n`);
  if (unknown.length > 0) return EXIT_REJECTED;
  // A redacted export renders copies that differ from the storage zone: nothing read ahead would be used.
  if (!request.redaction) waitingRenderer?.readAhead(data, sessionToReadAhead(report.sessions, chosen));
  clock.step('parse');
  let rounds = 0;
  let unchanged = 0;
  // A conversation that cannot be parsed (its `.sd` gone and not derivable
  // again, say) is left out and named, so that one bad session does not cost
  // the export of all the others; the exit status still says something failed.
  const leftOut = new Set<string>();
  for (const parsed of await parseSessionsOnCores(data, chosen, { threads: defaultThreads(), onSession: () => clock.advance(1, 0) })) {
    if (parsed.round !== undefined) rounds++;
    if (parsed.unchanged) unchanged++;
    if (parsed.failure === undefined) continue;
    if (parsed.failure.chain) {
      io.error(`error: ${parsed.failure.message}\n`);
    } else {
      io.error(`error: conversation ${parsed.session} is left out of this export: ${parsed.failure.message}\n`);
      leftOut.add(parsed.session);
    }
    rejected = true;
  }
  const exported = chosen.filter((session) => !leftOut.has(session));
  // A last line without its newline is not in this export: said after every error, with why.
  for (const session of report.sessions) for (const source of session.sources) if (source.inFlightBytes > 0) io.error(`note: ${session.session} ${source.source}: ${source.message}\n`);
  let redaction: RedactionPlan | undefined;
  let redacted: RedactionReport['totals'] | undefined;
  if (request.redaction) {
    clock.step('scan');
    redaction = await scanForSecrets(data, exported, { rules: request.redaction.rules, paths: request.redaction.paths, converterFor });
    const report = redactionReport(redaction);
    redacted = report.totals;
    if (request.redaction.dryRun) {
      const scan = clock.end();
      io.out(json ? `${JSON.stringify(report)}\n` : `${reportText(report)}nothing was written (--dry-run); scanned in ${((scan?.ms ?? 0) / 1000).toFixed(2)} s\n`);
      return rejected ? EXIT_REJECTED : EXIT_OK;
    }
    if (!json) io.error(`redaction: ${report.totals.findings} secrets (${report.totals.bytes} bytes) found; they are replaced in the export, and listed in its bundle/redaction-report.json\n`);
  }
  const result = await writeExport(data, out, exported, { observer: clock, redaction, waitingRenderer });
  const totals = landedTotals(report);
  await finish(request, result, clock, started, io, {
    json: { ...(redacted ? { redacted: { findings: redacted.findings, bytes: redacted.bytes } } : {}), other_conversations_in_data: others, landed: totals, new_rounds: rounds, unchanged_conversations: unchanged, reused_files: result.reused, copied_files: result.copied },
    text: `${request.source.origin === 'sample' ? 'Exported the sample corpus (no Claude Code history was found).\n' : ''}${others > 0 ? `The data folder holds ${others} other conversation${others === 1 ? '' : 's'}, not of sessions under this source; --all exports them too.\n` : ''}export written to ${out}: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}; landed ${totals.records} new records, ${rounds} new rounds (${unchanged} conversations unchanged), ${result.copied} files copied and ${result.reused} unchanged ones kept from the previous export`,
  });
  return rejected ? EXIT_REJECTED : EXIT_OK;
}

/**
 * The session a waiting renderer reads from the storage zone while the
 * export parses (site/data/read-ahead.ts): the one chosen session with new
 * evidence, when there is exactly one, as after a person worked on in one
 * conversation. Not more: the child would hold each one's rows from now
 * until it renders it, where it holds one conversation at a time otherwise.
 */
function sessionToReadAhead(sessions: readonly SessionOutcome[], chosen: readonly string[]): string[] {
  const wanted = new Set(chosen);
  const changed = sessions.filter((outcome) => outcome.sources.some((source) => source.landed.length > 0) && wanted.has(outcome.session));
  return changed.length === 1 ? [changed[0]!.session] : [];
}

async function runMerge(inputs: string[], destination: Destination, waitingRenderer: WaitingRenderer | undefined, io: Io): Promise<number> {
  const started = performance.now();
  const drawn = io.interactive && !destination.json;
  const clock = new StepClock(drawn, drawn ? io.error : undefined);
  clock.step('verify');
  let rejected = false;
  for (const input of inputs) {
    const report = verifyExport(input, {});
    for (const problem of report.problems) io.error(`error: ${input}: ${problem.path}: ${problem.what}\n`);
    if (report.problems.length > 0 || report.rootDigest === undefined) rejected = true;
    clock.advance(1, report.bytes);
  }
  if (rejected) {
    clock.end();
    io.error('error: an export to merge did not verify; nothing was written\n');
    return EXIT_REJECTED;
  }
  let result: ExportResult;
  try {
    result = await mergeExports(inputs, destination.out, siteCacheOf(destination.data), { observer: clock, waitingRenderer });
  } catch (error) {
    if (!(error instanceof MergeConflictError)) throw error;
    clock.end();
    io.error(`error: ${error.message}; nothing was written\n`);
    return EXIT_REJECTED;
  }
  await finish(destination, result, clock, started, io, { json: { merged: inputs }, text: `merged export written to ${destination.out} from ${inputs.length} exports: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}` });
  return EXIT_OK;
}

/** The archive, when asked for, and what the command says at the end: a line of JSON, or words for a person. */
async function finish(destination: Destination, result: ExportResult, clock: StepClock, started: number, io: Io, said: { json: Record<string, unknown>; text: string }): Promise<void> {
  const { out } = destination;
  const archive = destination.archive !== undefined ? await writeArchive(out, destination.archive, { observer: clock, reuse: { index: frameIndexOf(destination.data, destination.archive), digests: result.digests }, listed: result.listed }) : undefined;
  for (const failure of await earlierExportsRemoved()) io.error(`warning: ${failure}\n`);
  clock.end();
  const elapsed = performance.now() - started;
  if (destination.json) {
    io.out(`${JSON.stringify({ out, root_digest: result.rootDigest, conversations: result.conversations.length, files: result.files, bytes: result.bytes, site: result.site ? path.join(out, 'site', 'index.html') : undefined, site_pages: result.site?.pages, site_pages_built: result.site?.built, site_pages_kept_from_earlier: result.site?.keptFromEarlier, site_built_by_kept_renderer: result.site?.byKeptRenderer, site_renderer_failure: result.site?.rendererFailure, archive: archive?.archive, archive_bytes: archive?.bytes, archive_frames: archive?.frames, archive_frames_reused: archive?.framesReused, ...said.json, elapsed_ms: Math.round(elapsed), steps: clock.timings })}\n`);
    return;
  }
  const shown = path.relative(process.cwd(), out) || '.';
  io.out(
    `${said.text}, in ${(elapsed / 1000).toFixed(2)} s\n` +
      `root digest ${result.rootDigest}\n` +
      (archive ? `archive ${archive.archive}: ${megabytes(archive.bytes)}${archive.framesReused > 0 ? `, ${archive.framesReused} of its ${archive.frames} frames unchanged from the last archive` : ''} (tar --zstd -xf it, or npx sessionizer verify it)\n` : '') +
      `verify it with: npx sessionizer verify ${shown}   or, with stock tools: (cd ${shown} && sha256sum -c --quiet manifest-sha256.txt)\n` +
      `The bundle is in ${path.join(shown, 'bundle')}.\n` +
      (result.site ? `Open the site: ${path.join(shown, 'site', 'index.html')} (${result.site.pages} pages, ${result.site.built} built${result.site.built > 0 && result.site.byKeptRenderer ? ' by the renderer the last build kept' : ''}${result.site.keptFromEarlier > 0 ? `, ${result.site.keptFromEarlier} the same as before in conversations that changed` : ''} and ${result.site.pages - result.site.built - result.site.keptFromEarlier} unchanged, in ${(result.site.milliseconds / 1000).toFixed(1)} s; it works from file:// with no server)\n` : '') +
      (result.site?.rendererFailure !== undefined ? `The renderer the last build kept failed, so Astro built the pages instead; it keeps a new one. What failed: ${result.site.rendererFailure.split('\n').slice(0, 3).join(' ')}\n` : ''),
  );
}
