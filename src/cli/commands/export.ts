// `sessionizer export [--source DIR] [--data DIR] [--out DIR] [--conversation ID]...`:
// collect, parse, and write the export folder with its manifest and root
// digest. `npm run export` runs exactly this.

import path from 'node:path';
import { claudeCodeAdapter } from '../../adapters/claude-code/adapter.ts';
import { discoverSessions } from '../../adapters/claude-code/discover.ts';
import { sessionMatcher } from '../../adapters/claude-code/filters.ts';
import { describeSourceRoot, resolveSourceRoot, type SourceRoot } from '../../adapters/claude-code/source-root.ts';
import { writeArchive } from '../../bundle/archive.ts';
import { writeExport } from '../../bundle/export.ts';
import { collectAllOnCores, landedTotals, storedSessions } from '../../collection/collect-all.ts';
import { parseSession } from '../../parse/parse.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, SOURCE_OPTIONS, type Io } from '../command.ts';
import { megabytes } from '../progress.ts';
import { StepClock } from '../step-clock.ts';
import { DEFAULT_DATA } from './collect.ts';

export const DEFAULT_OUT = 'export';

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseCommandArguments('export', argv, { ...SOURCE_OPTIONS, data: { type: 'string' }, out: { type: 'string' }, archive: { type: 'string' }, conversation: { type: 'string', multiple: true } });
  const request: ExportRequest = {
    source: resolveSourceRoot(values.source),
    data: path.resolve(values.data ?? DEFAULT_DATA),
    out: path.resolve(values.out ?? DEFAULT_OUT),
    archive: values.archive !== undefined ? path.resolve(values.archive) : undefined,
    conversations: values.conversation,
    selected: sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] }),
    json: values.json === true,
  };
  if (!request.json) io.error(`${describeSourceRoot(request.source)}\ndata ${request.data}\n`);
  // No handler for Ctrl-C: it ends the process at once, like a crash, and
  // both are safe. The storage zone is written only write-once, the earlier
  // export is replaced by a rename only once the new one is whole, and the next
  // export removes what this one left (recoverInterruptedExports). A handler
  // would run only between steps, since most of them do not yield.
  return runExport(request, io);
}

interface ExportRequest {
  readonly source: SourceRoot;
  readonly data: string;
  readonly out: string;
  readonly archive: string | undefined;
  /** The conversations chosen with --conversation, or every stored one. */
  readonly conversations: string[] | undefined;
  readonly selected: ReturnType<typeof sessionMatcher>;
  readonly json: boolean;
}

async function runExport(request: ExportRequest, io: Io): Promise<number> {
  const { data, out, json } = request;
  const started = performance.now();
  const drawn = io.interactive && !json;
  const clock = new StepClock(drawn, drawn ? io.error : undefined);
  clock.step('collect');
  const report = await collectAllOnCores({
    data,
    adapter: claudeCodeAdapter,
    discovery: discoverSessions(request.source.root),
    selected: request.selected,
    onSession(outcome) {
      let landed = 0;
      for (const item of outcome.sources) for (const file of item.landed) landed += file.sourceBytes;
      clock.advance(1, landed);
    },
  });
  let rejected = report.sessions.some((session) => session.locked !== undefined || session.unreadable.length > 0 || session.sources.some((item) => item.status === 'conflict' || item.status === 'failed'));
  for (const session of report.sessions) {
    for (const item of session.sources) if (item.status === 'conflict' || item.status === 'failed') io.error(`error: ${session.session} ${item.source}: ${item.message}\n`);
    if (session.locked) io.error(`error: ${session.locked}\n`);
  }
  const stored = storedSessions(data);
  const chosen = request.conversations ?? stored;
  const unknown = chosen.filter((id) => !stored.includes(id));
  for (const id of unknown) io.error(`error: conversation ${id}: nothing is landed for it in ${data}\n`);
  if (unknown.length > 0) return EXIT_REJECTED;
  clock.step('parse');
  let rounds = 0;
  let unchanged = 0;
  for (const session of chosen) {
    try {
      const parsed = parseSession(data, session);
      if (parsed.round) rounds++;
      if (parsed.unchanged) unchanged++;
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      io.error(`error: ${error.message}\n`);
      rejected = true;
    }
    clock.advance(1, 0);
  }
  const result = await writeExport(data, out, chosen, { observer: clock });
  const archive = request.archive !== undefined ? await writeArchive(out, request.archive, { observer: clock }) : undefined;
  clock.end();
  const totals = landedTotals(report);
  const elapsed = performance.now() - started;
  if (json) {
    io.out(`${JSON.stringify({ out, root_digest: result.rootDigest, conversations: result.conversations.length, files: result.files, bytes: result.bytes, site: result.site ? path.join(out, 'site', 'index.html') : undefined, site_pages: result.site?.pages, site_pages_built: result.site?.built, archive: archive?.archive, archive_bytes: archive?.bytes, landed: totals, new_rounds: rounds, unchanged_conversations: unchanged, reused_files: result.reused, copied_files: result.copied, elapsed_ms: Math.round(elapsed), steps: clock.timings })}\n`);
  } else {
    const shown = path.relative(process.cwd(), out) || '.';
    io.out(
      `${request.source.origin === 'sample' ? 'Exported the sample corpus (no Claude Code history was found).\n' : ''}` +
        `export written to ${out}: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}; landed ${totals.records} new records, ${rounds} new rounds (${unchanged} conversations unchanged), ${result.copied} files copied and ${result.reused} unchanged ones kept from the previous export, in ${(elapsed / 1000).toFixed(2)} s\n` +
        `root digest ${result.rootDigest}\n` +
        (archive ? `archive ${archive.archive}: ${megabytes(archive.bytes)} (tar --zstd -xf it, or npx sessionizer verify it)\n` : '') +
        `verify it with: npx sessionizer verify ${shown}   or, with stock tools: (cd ${shown} && sha256sum -c --quiet manifest-sha256.txt)\n` +
        `The bundle is in ${path.join(shown, 'bundle')}.\n` +
        (result.site ? `Open the site: ${path.join(shown, 'site', 'index.html')} (${result.site.pages} pages, ${result.site.built} built and ${result.site.pages - result.site.built} unchanged, in ${(result.site.milliseconds / 1000).toFixed(1)} s; it works from file:// with no server)\n` : ''),
    );
  }
  return rejected ? EXIT_REJECTED : EXIT_OK;
}
