// `sessionizer export [--source DIR] [--data DIR] [--out DIR] [--conversation ID]...`:
// collect, parse, and write the export folder with its manifest and root
// digest. `npm run export` runs exactly this.

import path from 'node:path';
import { claudeCodeAdapter } from '../../adapters/claude-code/adapter.ts';
import { discoverSessions } from '../../adapters/claude-code/discover.ts';
import { sessionMatcher } from '../../adapters/claude-code/filters.ts';
import { describeSourceRoot, resolveSourceRoot } from '../../adapters/claude-code/source-root.ts';
import { writeArchive } from '../../bundle/archive.ts';
import { writeExport } from '../../bundle/export.ts';
import { collectAllOnCores, landedTotals, storedSessions } from '../../collection/collect-all.ts';
import { parseSession } from '../../parse/parse.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, SOURCE_OPTIONS, type Io } from '../command.ts';
import { megabytes, progress, rate } from '../progress.ts';
import { DEFAULT_DATA } from './collect.ts';

export const DEFAULT_OUT = 'export';

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseCommandArguments('export', argv, { ...SOURCE_OPTIONS, data: { type: 'string' }, out: { type: 'string' }, archive: { type: 'string' }, conversation: { type: 'string', multiple: true } });
  const source = resolveSourceRoot(values.source);
  const data = path.resolve(values.data ?? DEFAULT_DATA);
  const out = path.resolve(values.out ?? DEFAULT_OUT);
  const quiet = values.json === true;
  if (!quiet) io.error(`${describeSourceRoot(source)}\ndata ${data}\n`);
  const started = performance.now();
  const bar = progress(io.interactive && !quiet);
  let landedBytes = 0;
  const report = await collectAllOnCores({
    data,
    adapter: claudeCodeAdapter,
    discovery: discoverSessions(source.root),
    selected: sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] }),
    onSession(outcome, done, total) {
      for (const item of outcome.sources) for (const file of item.landed) landedBytes += file.sourceBytes;
      bar.update(`collect: ${done}/${total} sessions, ${megabytes(landedBytes)} landed, ${rate(landedBytes, performance.now() - started)}`);
    },
  });
  bar.done();
  let rejected = report.sessions.some((session) => session.locked !== undefined || session.unreadable.length > 0 || session.sources.some((item) => item.status === 'conflict' || item.status === 'failed'));
  for (const session of report.sessions) {
    for (const item of session.sources) if (item.status === 'conflict' || item.status === 'failed') io.error(`error: ${session.session} ${item.source}: ${item.message}\n`);
    if (session.locked) io.error(`error: ${session.locked}\n`);
  }
  const stored = storedSessions(data);
  const chosen = values.conversation ?? stored;
  const unknown = chosen.filter((id) => !stored.includes(id));
  for (const id of unknown) io.error(`error: conversation ${id}: nothing is landed for it in ${data}\n`);
  if (unknown.length > 0) return EXIT_REJECTED;
  let rounds = 0;
  let unchanged = 0;
  for (const [done, session] of chosen.entries()) {
    try {
      const parsed = parseSession(data, session);
      if (parsed.round) rounds++;
      if (parsed.unchanged) unchanged++;
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      io.error(`error: ${error.message}\n`);
      rejected = true;
    }
    bar.update(`parse: ${done + 1}/${chosen.length} conversations, ${rounds} new rounds, ${unchanged} unchanged`);
  }
  bar.done();
  const result = writeExport(data, out, chosen);
  const archive = values.archive !== undefined ? await writeArchive(out, path.resolve(values.archive)) : undefined;
  const totals = landedTotals(report);
  if (quiet) {
    io.out(`${JSON.stringify({ out, root_digest: result.rootDigest, conversations: result.conversations.length, files: result.files, bytes: result.bytes, archive: archive?.archive, archive_bytes: archive?.bytes, landed: totals, new_rounds: rounds, unchanged_conversations: unchanged, reused_files: result.reused, copied_files: result.copied, elapsed_ms: Math.round(performance.now() - started) })}\n`);
  } else {
    io.out(
      `${source.origin === 'sample' ? 'Exported the sample corpus (no Claude Code history was found).\n' : ''}` +
        `export written to ${out}: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}; landed ${totals.records} new records, ${rounds} new rounds (${unchanged} conversations unchanged), ${result.copied} files copied and ${result.reused} unchanged ones kept from the previous export, in ${((performance.now() - started) / 1000).toFixed(2)} s\n` +
        `root digest ${result.rootDigest}\n` +
        (archive ? `archive ${archive.archive}: ${megabytes(archive.bytes)} (tar --zstd -xf it, or npx sessionizer verify it)\n` : '') +
        `verify it with: npx sessionizer verify ${path.relative(process.cwd(), out) || '.'}   or, with stock tools: (cd ${path.relative(process.cwd(), out) || '.'} && sha256sum -c --quiet manifest-sha256.txt)\n` +
        `The bundle is in ${path.join(path.relative(process.cwd(), out) || '.', 'bundle')}; the static site arrives with a later stage.\n`,
    );
  }
  return rejected ? EXIT_REJECTED : EXIT_OK;
}
