// `sessionizer collect`: land new source data in the storage zone.
//
// With --once it makes one pass and exits, which is also the first backfill
// of existing history. Without it, it makes a pass, waits --interval seconds,
// and makes another, until interrupted.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import { type SessionMatcher } from '../../adapters/adapter.ts';
import { collectAllOnCores, landedTotals, sessionErrors, unreadableSources, type CollectAllReport } from '../../collection/collect-all.ts';
import type { Discovery } from '../../adapters/adapter.ts';
import type { SessionOutcome } from '../../collection/outcome.ts';
import { command, DATA_OPTION, dataFolderOf, EXIT_OK, EXIT_REJECTED, line, SOURCE_OPTIONS, UsageError, type Given, type Io } from '../command.ts';
import { megabytes, progress, rate } from '../progress.ts';

const OPTIONS = {
  ...SOURCE_OPTIONS,
  data: DATA_OPTION,
  once: { type: 'boolean', description: 'make one pass and exit (the first backfill of existing history, too)' },
  interval: { type: 'string', value: 'SECONDS', default: '5', description: 'without --once, the wait between passes' },
  json: { type: 'boolean', description: 'print the report of each pass as one line of JSON' },
} as const;

export const collect = command({
  name: 'collect',
  summary: 'land new source data',
  options: OPTIONS,
  examples: ['sessionizer collect --once', 'sessionizer collect --source ~/.claude/projects --data ~/sessionizer-data --interval 30'],
  run: collectSources,
});

async function collectSources({ values }: Given<typeof OPTIONS>, io: Io): Promise<number> {
  const interval = Number(values.interval);
  if (!Number.isFinite(interval) || interval <= 0) throw new UsageError(`collect: --interval must be a number of seconds above 0, not ${JSON.stringify(values.interval)}`);
  const source = DEFAULT_ADAPTER.resolveSourceRoot(values.source);
  const selected = DEFAULT_ADAPTER.sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] });
  const data = dataFolderOf(values.data, 'create');
  if (!values.json) io.error(`${line(DEFAULT_ADAPTER.describeSourceRoot(source))}${line(`data ${data}`)}`);

  if (values.once) return onePass(source.root, data, selected, values.json === true, io);

  // Watching: an interruption ends the command after the pass in progress, so
  // the report of that pass is still printed; a second one ends it at once.
  // Either is safe for the data: landing commits each file before its cursor,
  // so whatever was landed stays and the next pass goes on from it.
  let stopping = false;
  let wake: (() => void) | undefined;
  const interrupt = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    wake?.();
  };
  process.on('SIGINT', interrupt);
  try {
    for (;;) {
      const exit = await onePass(source.root, data, selected, values.json === true, io);
      if (stopping) return exit;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (stopping) return exit;
    }
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
}

async function onePass(root: string, data: string, selected: SessionMatcher, json: boolean, io: Io): Promise<number> {
  const started = performance.now();
  const discovery = DEFAULT_ADAPTER.discover(root);
  const bar = progress(io.interactive && !json);
  let landedBytes = 0;
  const report = await collectAllOnCores({
    data,
    adapter: DEFAULT_ADAPTER,
    discovery,
    selected,
    onSession(outcome, done, total) {
      for (const source of outcome.sources) for (const file of source.landed) landedBytes += file.sourceBytes;
      bar.update(`collect: ${done}/${total} sessions, ${megabytes(landedBytes)} landed, ${rate(landedBytes, performance.now() - started)}`);
    },
  });
  bar.done();
  const elapsed = performance.now() - started;
  // A source that could not be read is left out of the pass, which lands the rest and exits 1, as for a conflict.
  const failed = report.sessions.some((session) => sessionErrors(session).length > 0) || discovery.unreadable.length > 0;
  if (json) io.out(`${JSON.stringify(reportJson(report, discovery, elapsed))}\n`);
  else printReport(report, discovery, elapsed, io);
  return failed ? EXIT_REJECTED : EXIT_OK;
}

function printReport(report: CollectAllReport, discovery: Discovery, elapsed: number, io: Io): void {
  const totals = landedTotals(report);
  for (const session of report.sessions) printSession(session, io);
  // A source file that could not be read is said with its session's errors.
  for (const { path: where, error } of discovery.unreadable) io.error(line(`error: ${where}: cannot be read (${error}); nothing under it is collected`));
  for (const warning of discovery.warnings) io.error(line(`warning: ${warning}`));
  const unchanged = report.sessions.filter((session) => session.sources.every((source) => source.landed.length === 0)).length;
  io.out(
    `landed ${totals.files} file${totals.files === 1 ? '' : 's'}, ${totals.records} records, ${megabytes(totals.bytes)} from ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'} ` +
      `in ${(elapsed / 1000).toFixed(2)} s (${rate(totals.bytes, elapsed)}); ${unchanged} had nothing new` +
      `${report.skipped > 0 ? `; ${report.skipped} left out by filters` : ''}\n`,
  );
}

function printSession(session: SessionOutcome, io: Io): void {
  for (const error of sessionErrors(session)) io.error(line(`error: ${error}`));
  for (const source of session.sources) {
    if (source.status === 'gone') io.error(line(`${session.session} ${source.source}: ${source.message}`));
    for (const problem of source.problems) io.error(line(`note: ${source.source}:${problem.ord}: ${problem.what}`));
    if (source.problemCount > source.problems.length) io.error(line(`note: ${source.source}: ${source.problemCount - source.problems.length} more such lines`));
    if (source.inFlightBytes > 0) io.error(line(`note: ${source.source}: ${source.message}`));
    for (const [why, count] of source.unknownShapes) io.error(line(`note: ${source.source}: ${count} part${count === 1 ? '' : 's'} kept as unknown: ${why}`));
  }
  if (session.mended > 0) io.error(line(`${session.session}: derived ${session.mended} missing .sd file${session.mended === 1 ? '' : 's'}`));
}

/** The --json form. Stable: fields are added, never renamed or removed. */
export function reportJson(report: CollectAllReport, discovery: Discovery, elapsed: number) {
  return {
    elapsed_ms: Math.round(elapsed),
    totals: landedTotals(report),
    left_out: report.skipped,
    warnings: warningsJson(discovery),
    unreadable_sources: unreadableSources(discovery, report),
    sessions: report.sessions.map((session) => ({
      session: session.session,
      locked: session.locked,
      mended: session.mended,
      unreadable: session.unreadable,
      sources: session.sources.map((source) => ({
        source: source.source,
        place: source.place,
        status: source.status,
        message: source.message,
        landed: source.landed,
        problems: source.problems,
        problem_count: source.problemCount,
        in_flight_bytes: source.inFlightBytes,
        unknown_shapes: Object.fromEntries(source.unknownShapes),
      })),
    })),
  };
}

/** The `warnings` of --json: discovery's warnings, then each folder or file it could not read as `PATH: ERROR`, as this field has always listed them. */
export function warningsJson(discovery: Discovery): string[] {
  return [...discovery.warnings, ...discovery.unreadable.map(({ path: where, error }) => `${where}: ${error}`)];
}
