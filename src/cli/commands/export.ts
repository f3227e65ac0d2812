// `sessionizer export [--source DIR] [--data DIR] [--out DIR] [--conversation ID]... [--all]
//   [--redact [--redact-rules FILE] [--redact-paths] [--keep-images] [--dry-run]]`:
// collect, parse, and write the export folder with its manifest and root
// digest. It holds the conversations of the sessions under the source, or
// every one the data folder holds with --all, or those named with
// --conversation. `npm run export` runs exactly this. With --redact, the secrets of
// the exported copy are found first and removed from it (src/redaction/), and
// so are its images, which no rule can read, unless --keep-images is given;
// with --dry-run the findings are printed and no export is written.
//
// `sessionizer export --merge EXPORT --merge EXPORT ... [--out DIR]`: one
// export from exports made apart (a large history split by session across
// machines), each verified, put together by their manifests.
//
// The steps themselves are src/export/pipeline.ts's: this command turns its
// options into a request, draws the steps as they go, and says what happened.

import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import type { UnreadableSource } from '../../adapters/adapter.ts';
import type { ArchiveResult } from '../../bundle/archive.ts';
import type { ExportResult } from '../../export/export-folder.ts';
import { exportConversations, mergeExportFolders, type ExportEvent, type ExportOutcome, type ExportRequest } from '../../export/pipeline.ts';
import { isOutOfRoom } from '../../files/write-failure.ts';
import { findingsText, reportText } from '../../redaction/report.ts';
import { ruleSet, RulesFileError } from '../../redaction/rules.ts';
import type { SiteResult } from '../../site/generator/site.ts';
import { command, CONVERSATION_ID, DATA_OPTION, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, line, SOURCE_OPTIONS, UsageError, type Given, type Io } from '../command.ts';
import { megabytes } from '../progress.ts';
import { StepClock } from '../step-clock.ts';

const OPTIONS = {
  ...SOURCE_OPTIONS,
  data: DATA_OPTION,
  out: { type: 'string', value: 'DIR', default: 'export', description: 'the export folder to write' },
  archive: { type: 'string', value: 'FILE', description: 'also write the export folder as one .tar.zst' },
  conversation: { type: 'string', value: 'ID', multiple: true, description: 'export only this conversation; without it, those of the sessions under the source', shape: CONVERSATION_ID },
  all: { type: 'boolean', description: 'export every conversation the data folder holds, not only those of the sessions under the source' },
  merge: { type: 'string', value: 'EXPORT', multiple: true, description: 'an export folder made apart: the exports given are verified and put together, and nothing is collected' },
  redact: { type: 'boolean', description: 'find secrets in the exported copy and replace them there (never in the data folder)' },
  'redact-rules': { type: 'string', value: 'FILE', description: 'with --redact (implied): more rules, one `name /pattern/flags` a line' },
  'redact-paths': { type: 'boolean', description: 'with --redact (implied): also replace user names in home folder paths' },
  'keep-images': { type: 'boolean', description: 'with --redact: keep pasted images and documents, which no rule can read for secrets; without it they are left out, each replaced by a note saying so' },
  'dry-run': { type: 'boolean', description: 'with --redact: print what would be redacted and write nothing' },
  json: { type: 'boolean', description: 'print the outcome as one line of JSON' },
} as const;

export const exportCommand = command({
  name: 'export',
  summary: 'the bundle, the static site, the manifest and root digest, a .tar.zst with --archive; --redact takes secrets and images out of the copy; --merge puts exports made apart together',
  options: OPTIONS,
  notes: [
    'An export collects and parses first, so it is the one command most people need. --merge takes only --data, --out, --archive and --json.',
  ],
  examples: ['sessionizer export', 'sessionizer export --source ~/.claude/projects --out ~/my-export --archive ~/my-export.tar.zst --redact', 'sessionizer export --merge laptop-export --merge desktop-export --out all'],
  run: runExportCommand,
});

async function runExportCommand({ values }: Given<typeof OPTIONS>, io: Io): Promise<number> {
  const redact = values.redact === true || values['redact-rules'] !== undefined || values['redact-paths'] === true;
  if (values['dry-run'] && !redact) throw new UsageError('export: --dry-run only applies to --redact: it prints what would be redacted');
  if (values['keep-images'] && !redact) throw new UsageError('export: --keep-images only applies to --redact: an export without it keeps images as they are');
  if (values.all && values.conversation !== undefined) throw new UsageError('export: --all and --conversation each say which conversations to export; give one of them');
  const json = values.json === true;
  const destination = { data: path.resolve(values.data), out: path.resolve(values.out), archive: values.archive !== undefined ? path.resolve(values.archive) : undefined };
  if (values.merge !== undefined) {
    const mixed = (['source', 'include', 'exclude', 'conversation', 'all', 'redact', 'redact-rules', 'redact-paths', 'keep-images'] as const).filter((name) => values[name] !== undefined);
    if (mixed.length > 0) throw new UsageError(`export: --merge puts finished exports together and collects nothing, so it takes no --${mixed[0]}`);
    return runMerge(values.merge.map((input) => path.resolve(input)), destination, json, io);
  }
  let rules;
  try {
    rules = redact ? ruleSet(values['redact-rules'] !== undefined ? path.resolve(values['redact-rules']) : undefined) : undefined;
  } catch (error) {
    if (!(error instanceof RulesFileError)) throw error;
    io.error(line(`error: ${error.message}`));
    return EXIT_REJECTED;
  }
  return runExport(
    {
      ...destination,
      adapter: DEFAULT_ADAPTER,
      source: DEFAULT_ADAPTER.resolveSourceRoot(values.source),
      conversations: values.conversation,
      all: values.all === true,
      selected: DEFAULT_ADAPTER.sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] }),
      redaction: rules ? { rules, paths: values['redact-paths'] === true, dryRun: values['dry-run'] === true, keepImages: values['keep-images'] === true } : undefined,
    },
    json,
    io,
  );
}

/** What the command says while the export runs: each line on standard error, between the steps it belongs to. */
class Telling {
  /** When the export's first step began, for the elapsed time said at the end. */
  started = performance.now();
  readonly clock: StepClock;

  constructor(
    private readonly io: Io,
    private readonly json: boolean,
    private readonly onStart?: () => void,
  ) {
    const drawn = io.interactive && !json;
    this.clock = new StepClock(drawn, drawn ? io.error : undefined);
  }

  readonly tell = (event: ExportEvent): void => {
    const { io } = this;
    switch (event.type) {
      case 'started':
        this.onStart?.();
        this.started = performance.now();
        return;
      case 'collection error':
      case 'chain error':
        io.error(line(`error: ${event.message}`));
        return;
      case 'unknown conversation':
        io.error(line(`error: conversation ${event.conversation}: nothing is landed for it in ${event.data}`));
        return;
      case 'left out':
        io.error(line(`error: conversation ${event.conversation} is left out of this export: ${event.message}`));
        return;
      case 'not parsed':
        io.error(line(`error: conversation ${event.conversation} could not be parsed: ${event.message}`));
        return;
      case 'write in progress':
        io.error(line(`note: ${event.session} ${event.source}: ${event.message}`));
        return;
      case 'secrets found':
        if (!this.json) io.error(line(`redaction: ${findingsText(event.totals, event.media)}; they are replaced in the export, and listed in its bundle/redaction-report.json`));
        return;
      case 'merge input problem':
        io.error(line(`error: ${event.input}: ${event.path}: ${event.what}`));
        return;
      case 'earlier export left':
      case 'source warning':
        io.error(line(`warning: ${event.message}`));
        return;
    }
  };
}

async function runExport(request: ExportRequest, json: boolean, io: Io): Promise<number> {
  const telling = new Telling(io, json, () => {
    if (!json) io.error(`${line(request.adapter.describeSourceRoot(request.source))}${line(`data ${request.data}`)}`);
  });
  const outcome = await exportConversations(request, { observer: telling.clock, tell: telling.tell });
  switch (outcome.type) {
    case 'refused':
    case 'locked':
      return notStarted(outcome, io);
    case 'unknown conversations':
      return EXIT_REJECTED;
    case 'not written':
      return notWritten(request.out, outcome.message, json, telling, io);
    case 'not stored': {
      const message = notStoredMessage(request, outcome);
      telling.clock.end();
      io.error(line(`error: ${message}`));
      if (json) {
        io.out(
          `${JSON.stringify({
            out: request.out,
            written: false,
            error: message,
            not_landed: outcome.notLanded.map(({ session, source, message: error, refused }) => ({ session, source: source ?? null, error, code: refused ?? null })),
            not_parsed: outcome.notParsed.map(({ conversation, message: error, refused }) => ({ conversation, error, code: refused })),
            landed: outcome.landed,
            elapsed_ms: Math.round(performance.now() - telling.started),
            steps: telling.clock.timings,
          })}\n`,
        );
      }
      return EXIT_REJECTED;
    }
    case 'dry run': {
      const scan = telling.clock.end();
      io.out(json ? `${JSON.stringify(outcome.report)}\n` : `${reportText(outcome.report)}${incompleteText(outcome.unreadable, 'scan')}nothing was written (--dry-run); scanned in ${((scan?.ms ?? 0) / 1000).toFixed(2)} s\n`);
      return outcome.rejected ? EXIT_REJECTED : EXIT_OK;
    }
    case 'written': {
      const { result, counts } = outcome;
      const { redacted, otherConversations: others, newRounds: rounds, unchangedConversations: unchanged, landed: totals, unreadable } = counts;
      finish(request.out, json, result, outcome.archive, telling, io, {
        json: { ...(redacted ? { redacted: { findings: redacted.findings, bytes: redacted.bytes } } : {}), other_conversations_in_data: others, landed: totals, new_rounds: rounds, unchanged_conversations: unchanged, reused_files: result.reused, copied_files: result.copied, unreadable_sources: unreadable },
        incomplete: incompleteText(unreadable, 'export'),
        text: `${request.source.origin === 'sample' ? 'Exported the sample corpus (no Claude Code history was found).\n' : ''}${others > 0 ? `The data folder holds ${others} other conversation${others === 1 ? '' : 's'}, not of sessions under this source; --all exports them too.\n` : ''}export written to ${request.out}: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}; landed ${totals.records} new records, ${rounds} new rounds (${unchanged} conversations unchanged), ${result.copied} files copied and ${result.reused} unchanged ones kept from the previous export`,
      });
      return outcome.rejected ? EXIT_REJECTED : EXIT_OK;
    }
  }
}

/**
 * The one line that ends an export that could not land or parse all it
 * collected: that nothing was written, what failed (each named on a line
 * of its own before it), and what to do.
 */
function notStoredMessage(request: ExportRequest, outcome: Extract<ExportOutcome, { type: 'not stored' }>): string {
  const sessions = new Set(outcome.notLanded.map((failure) => failure.session)).size;
  const conversations = outcome.notParsed.length;
  const failed = [
    ...(sessions > 0 ? [`${sessions} session${sessions === 1 ? '' : 's'} could not be landed`] : []),
    ...(conversations > 0 ? [`${conversations} conversation${conversations === 1 ? '' : 's'} could not be parsed`] : []),
  ].join(' and ');
  const codes = [...outcome.notLanded.map((failure) => failure.refused), ...outcome.notParsed.map((failure) => failure.refused)];
  const todo = codes.every((code) => code !== undefined && isOutOfRoom(code)) ? `free space on the file system that holds ${request.data}` : 'fix what the lines above name';
  const kept = fs.existsSync(request.out) ? `, and the earlier one in ${request.out} is left as it was` : '';
  return `no export was written${kept}: ${failed} in ${request.data} (each is named above); ${todo}, and export again: what landed stays, and the next export lands the rest`;
}

/** An export or merge that a write the file system refused stopped: its one line, and with --json the same in the line of JSON. */
function notWritten(out: string, message: string, json: boolean, telling: Telling, io: Io): number {
  telling.clock.end();
  io.error(line(`error: ${message}`));
  if (json) io.out(`${JSON.stringify({ out, written: false, error: message, elapsed_ms: Math.round(performance.now() - telling.started), steps: telling.clock.timings })}\n`);
  return EXIT_REJECTED;
}

/** An export or merge that did not start: its destination was refused (a usage error) or another export holds the data folder. */
function notStarted(outcome: { type: 'refused'; reason: string } | { type: 'locked'; message: string }, io: Io): number {
  if (outcome.type === 'refused') {
    io.error(line(`sessionizer export: ${outcome.reason}`));
    return EXIT_USAGE;
  }
  io.error(line(`error: ${outcome.message}`));
  return EXIT_REJECTED;
}

async function runMerge(inputs: string[], destination: { data: string; out: string; archive: string | undefined }, json: boolean, io: Io): Promise<number> {
  const telling = new Telling(io, json);
  const outcome = await mergeExportFolders(inputs, destination, { observer: telling.clock, tell: telling.tell });
  switch (outcome.type) {
    case 'refused':
    case 'locked':
      return notStarted(outcome, io);
    case 'inputs rejected':
      telling.clock.end();
      io.error('error: an export to merge did not verify; nothing was written\n');
      return EXIT_REJECTED;
    case 'conflict':
      telling.clock.end();
      io.error(line(`error: ${outcome.message}; nothing was written`));
      return EXIT_REJECTED;
    case 'not written':
      return notWritten(destination.out, outcome.message, json, telling, io);
    case 'written':
      finish(destination.out, json, outcome.result, outcome.archive, telling, io, { json: { merged: inputs }, text: `merged export written to ${destination.out} from ${inputs.length} exports: ${outcome.result.conversations.length} conversations, ${outcome.result.files} files, ${megabytes(outcome.result.bytes)}` });
      return EXIT_OK;
  }
}

/**
 * What a person is told of the sources that could not be read, one line
 * each after a line that says the export leaves them out; nothing when
 * every source was read.
 */
function incompleteText(unreadable: readonly UnreadableSource[], what: 'export' | 'scan'): string {
  if (unreadable.length === 0) return '';
  const count = `${unreadable.length} source${unreadable.length === 1 ? '' : 's'}`;
  return `The ${what} is incomplete: ${count} could not be read, and what ${unreadable.length === 1 ? 'it holds is' : 'they hold is'} not in it:\n${unreadable.map(({ path: where, error }) => `  not read: ${where} (${error})\n`).join('')}`;
}

/** What the command says at the end: a line of JSON, or words for a person. */
function finish(out: string, json: boolean, result: ExportResult, archive: ArchiveResult | undefined, telling: Telling, io: Io, said: { json: Record<string, unknown>; text: string; incomplete?: string }): void {
  const { clock } = telling;
  clock.end();
  const elapsed = performance.now() - telling.started;
  if (json) {
    io.out(`${JSON.stringify({ out, written: true, root_digest: result.rootDigest, conversations: result.conversations.length, files: result.files, bytes: result.bytes, site: result.site ? path.join(out, 'site', 'index.html') : undefined, site_pages: result.site?.pages, site_pages_built: result.site?.built, site_pages_kept_from_earlier: result.site?.keptFromEarlier, site_pages_over_budget: result.site?.overBudget.length ? result.site.overBudget : undefined, archive: archive?.archive, archive_bytes: archive?.bytes, archive_frames: archive?.frames, archive_frames_reused: archive?.framesReused, ...said.json, elapsed_ms: Math.round(elapsed), steps: clock.timings })}\n`);
    return;
  }
  const shown = path.relative(process.cwd(), out) || '.';
  io.out(
    `${said.text}, in ${(elapsed / 1000).toFixed(2)} s\n` +
      (said.incomplete ?? '') +
      `root digest ${result.rootDigest}\n` +
      (archive ? `archive ${archive.archive}: ${megabytes(archive.bytes)}${archive.framesReused > 0 ? `, ${archive.framesReused} of its ${archive.frames} frames unchanged from the last archive` : ''} (tar --zstd -xf it, or npx sessionizer verify it)\n` : '') +
      `verify it with: npx sessionizer verify ${shown}   or, with stock tools: (cd ${shown} && sha256sum -c --quiet manifest-sha256.txt)\n` +
      `The bundle is in ${path.join(shown, 'bundle')}.\n` +
      (result.site ? `Open the site: ${path.join(shown, 'site', 'index.html')} (${result.site.pages} pages, ${result.site.built} built${result.site.keptFromEarlier > 0 ? `, ${result.site.keptFromEarlier} the same as before in conversations that changed` : ''} and ${result.site.pages - result.site.built - result.site.keptFromEarlier} unchanged, in ${(result.site.milliseconds / 1000).toFixed(1)} s; it works from file:// with no server)\n` : '') +
      (result.site ? pageBudgetNotes(result.site) : ''),
  );
}

/** The pages over the page budget, when there are any: nothing is said otherwise. */
function pageBudgetNotes({ overBudget, pageBudget }: SiteResult): string {
  const kilobytes = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;
  const listed = <T>(items: readonly T[], shown: (item: T) => string): string => `${items.slice(0, LISTED).map(shown).join('; ')}${items.length > LISTED ? `; and ${items.length - LISTED} more` : ''}`;
  return (
    (overBudget.length > 0 ? `${overBudget.length} page${overBudget.length === 1 ? ' is' : 's are'} past the budget of ${kilobytes(pageBudget)} (a talk is never cut across pages, so a page of one talk larger than the budget passes it): ${listed(overBudget, ({ file, bytes }) => `${file} (${kilobytes(bytes)})`)}\n` : '')
  );
}

/** How many pages the note on the page budget names, at most. */
const LISTED = 5;
