// `sessionizer sources`: what would be collected, and from where, before
// anything is written.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import fs from 'node:fs';
import type { DiscoveredSession } from '../../adapters/adapter.ts';
import { command, EXIT_OK, EXIT_REJECTED, line, SOURCE_OPTIONS, type Given, type Io } from '../command.ts';
import { warningsJson } from './collect.ts';
import { megabytes } from '../progress.ts';

const OPTIONS = {
  ...SOURCE_OPTIONS,
  json: { type: 'boolean', description: 'print the sessions as one JSON document instead of lines' },
} as const;

export const sources = command({
  name: 'sources',
  summary: 'discovered sessions and their files',
  options: OPTIONS,
  examples: ['sessionizer sources --include "*my-app*"'],
  run: listSources,
});

function listSources({ values }: Given<typeof OPTIONS>, io: Io): number {
  const source = DEFAULT_ADAPTER.resolveSourceRoot(values.source);
  const discovery = DEFAULT_ADAPTER.discover(source.root);
  const selected = DEFAULT_ADAPTER.sessionMatcher({ include: values.include ?? [], exclude: values.exclude ?? [] });
  const sessions = discovery.sessions.filter(selected);
  const described = sessions.map(describe);
  if (values.json) {
    io.out(`${JSON.stringify({ root: source.root, origin: source.origin, sessions: described, left_out: discovery.sessions.length - sessions.length, warnings: warningsJson(discovery), unreadable_sources: discovery.unreadable }, null, 2)}\n`);
    return discovery.unreadable.length > 0 ? EXIT_REJECTED : EXIT_OK;
  }
  io.error(line(DEFAULT_ADAPTER.describeSourceRoot(source)));
  for (const session of described) {
    const streams = new Set(session.sources.filter((item) => item.place.startsWith('streams/')).map((item) => item.place));
    const runs = new Set(session.sources.filter((item) => item.place.startsWith('runs/')).map((item) => item.place));
    const notes = [
      `${streams.size} stream${streams.size === 1 ? '' : 's'}`,
      ...(runs.size > 0 ? [`${runs.size} workflow run${runs.size === 1 ? '' : 's'}`] : []),
      `${session.sources.length} file${session.sources.length === 1 ? '' : 's'}`,
      megabytes(session.bytes),
      ...(session.primary === undefined ? ['main transcript pruned'] : []),
    ];
    io.out(line(`${session.id}  ${session.primary ?? session.folders[0] ?? ''}${session.folders.length > 1 ? ` (+${session.folders.length - 1} more folders)` : ''}  ${notes.join(', ')}`));
  }
  io.error(line(`${sessions.length} session${sessions.length === 1 ? '' : 's'}${sessions.length < discovery.sessions.length ? `, ${discovery.sessions.length - sessions.length} left out by filters` : ''}`));
  for (const { path: where, error } of discovery.unreadable) io.error(line(`error: ${where}: cannot be read (${error}); what it holds is not listed`));
  for (const warning of discovery.warnings) io.error(line(`warning: ${warning}`));
  return discovery.unreadable.length > 0 ? EXIT_REJECTED : EXIT_OK;
}

function describe(session: DiscoveredSession) {
  let bytes = 0;
  const files = session.sources.map((source) => {
    let size = 0;
    try {
      size = fs.statSync(source.path).size;
    } catch {
      // Gone since discovery; it counts as empty here and collect will say so.
    }
    bytes += size;
    return { path: source.relative, kind: source.kind, nature: source.nature, place: source.place.type === 'stream' ? `streams/${source.place.stream}` : `runs/${source.place.run}`, bytes: size };
  });
  return { id: session.id, primary: session.primary, folders: session.folders, bytes, sources: files };
}
