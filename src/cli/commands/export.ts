// `sessionizer export [--source DIR] [--data DIR] [--out DIR] [--conversation ID]...
//   [--redact [--redact-rules FILE] [--redact-paths] [--dry-run]]`:
// collect, parse, and write the export folder with its manifest and root
// digest. `npm run export` runs exactly this. With --redact, the secrets of
// the exported copy are found first and removed from it (src/redaction/);
// with --dry-run the findings are printed and no export is written.

import path from 'node:path';
import { converterFor } from '../../adapters/dialects.ts';
import { claudeCodeAdapter } from '../../adapters/claude-code/adapter.ts';
import { discoverSessions } from '../../adapters/claude-code/discover.ts';
import { sessionMatcher } from '../../adapters/claude-code/filters.ts';
import { describeSourceRoot, resolveSourceRoot } from '../../adapters/claude-code/source-root.ts';
import { writeArchive } from '../../bundle/archive.ts';
import { writeExport } from '../../bundle/export.ts';
import { collectAllOnCores, landedTotals, storedSessions } from '../../collection/collect-all.ts';
import { parseSession } from '../../parse/parse.ts';
import { redactionReport, reportText, type RedactionReport } from '../../redaction/report.ts';
import { ruleSet, RulesFileError } from '../../redaction/rules.ts';
import { scanForSecrets, type RedactionPlan } from '../../redaction/scan.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, SOURCE_OPTIONS, UsageError, type Io } from '../command.ts';
import { megabytes, progress, rate } from '../progress.ts';
import { DEFAULT_DATA } from './collect.ts';

export const DEFAULT_OUT = 'export';

const REDACTION_OPTIONS = {
  redact: { type: 'boolean' },
  'redact-rules': { type: 'string' },
  'redact-paths': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseCommandArguments('export', argv, { ...SOURCE_OPTIONS, data: { type: 'string' }, out: { type: 'string' }, archive: { type: 'string' }, conversation: { type: 'string', multiple: true }, ...REDACTION_OPTIONS });
  const redact = values.redact === true || values['redact-rules'] !== undefined || values['redact-paths'] === true;
  if (values['dry-run'] && !redact) throw new UsageError('export: --dry-run only applies to --redact: it prints what would be redacted');
  let rules;
  try {
    rules = redact ? ruleSet(values['redact-rules'] !== undefined ? path.resolve(values['redact-rules']) : undefined) : undefined;
  } catch (error) {
    if (!(error instanceof RulesFileError)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
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
  for (const [done, session] of chosen.entries()) {
    try {
      if (parseSession(data, session).round) rounds++;
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      io.error(`error: ${error.message}\n`);
      rejected = true;
    }
    bar.update(`parse: ${done + 1}/${chosen.length} conversations, ${rounds} new rounds`);
  }
  bar.done();
  let redaction: RedactionPlan | undefined;
  let redacted: RedactionReport['totals'] | undefined;
  if (rules) {
    const scanning = performance.now();
    bar.update('redaction: scanning for secrets');
    redaction = await scanForSecrets(data, chosen, { rules, paths: values['redact-paths'] === true, converterFor });
    bar.done();
    const report = redactionReport(redaction);
    redacted = report.totals;
    if (values['dry-run']) {
      io.out(quiet ? `${JSON.stringify(report)}\n` : `${reportText(report)}nothing was written (--dry-run); scanned in ${((performance.now() - scanning) / 1000).toFixed(2)} s\n`);
      return rejected ? EXIT_REJECTED : EXIT_OK;
    }
    if (!quiet) io.error(`redaction: ${report.totals.findings} secrets (${report.totals.bytes} bytes) found in ${((performance.now() - scanning) / 1000).toFixed(2)} s; they are replaced in the export, and listed in its bundle/redaction-report.json\n`);
  }
  const result = writeExport(data, out, chosen, { redaction });
  const archive = values.archive !== undefined ? await writeArchive(out, path.resolve(values.archive)) : undefined;
  const totals = landedTotals(report);
  if (quiet) {
    io.out(`${JSON.stringify({ out, root_digest: result.rootDigest, conversations: result.conversations.length, files: result.files, bytes: result.bytes, archive: archive?.archive, archive_bytes: archive?.bytes, ...(redacted ? { redacted: { findings: redacted.findings, bytes: redacted.bytes } } : {}), landed: totals, new_rounds: rounds, elapsed_ms: Math.round(performance.now() - started) })}\n`);
  } else {
    io.out(
      `${source.origin === 'sample' ? 'Exported the sample corpus (no Claude Code history was found).\n' : ''}` +
        `export written to ${out}: ${result.conversations.length} conversations, ${result.files} files, ${megabytes(result.bytes)}; landed ${totals.records} new records, ${rounds} new rounds, in ${((performance.now() - started) / 1000).toFixed(2)} s\n` +
        `root digest ${result.rootDigest}\n` +
        (archive ? `archive ${archive.archive}: ${megabytes(archive.bytes)} (tar --zstd -xf it, or npx sessionizer verify it)\n` : '') +
        `verify it with: npx sessionizer verify ${path.relative(process.cwd(), out) || '.'}   or, with stock tools: (cd ${path.relative(process.cwd(), out) || '.'} && sha256sum -c --quiet manifest-sha256.txt)\n` +
        `The bundle is in ${path.join(path.relative(process.cwd(), out) || '.', 'bundle')}; the static site arrives with a later stage.\n`,
    );
  }
  return rejected ? EXIT_REJECTED : EXIT_OK;
}
