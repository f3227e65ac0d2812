// `sessionizer fork ID --at EVENT [--name NAME]`: an explicit branch at a
// stable boundary, and `sessionizer restore ID --branch NAME --out DIR`: a
// branch as a transcript that can be resumed.

import { TranscriptExists } from '../../adapters/adapter.ts';
import path from 'node:path';
import { branchPath, fork as makeFork, ForkRejected } from '../../branches/explicit.ts';
import { labelBranch } from '../../branches/labels.ts';
import { restoreBranch } from '../../branches/restore.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, UsageError, type Io } from '../command.ts';
import { DEFAULT_DATA } from './collect.ts';

export function fork(argv: string[], io: Io): number {
  const { values, positionals } = parseCommandArguments(
    'fork',
    argv,
    { at: { type: 'string' }, name: { type: 'string' }, data: { type: 'string' }, by: { type: 'string' }, reason: { type: 'string' }, 'allow-tool-closed': { type: 'boolean' }, json: { type: 'boolean' } },
    1,
  );
  const conversation = positionals[0];
  if (conversation === undefined) throw new UsageError('fork: ID is missing');
  if (values.at === undefined) throw new UsageError('fork: --at EVENT is missing (a record id, or root)');
  try {
    const { record, file } = makeFork(path.resolve(values.data ?? DEFAULT_DATA), { conversation, at: values.at, name: values.name, by: values.by, reason: values.reason, allowToolClosed: values['allow-tool-closed'] });
    if (values.json) {
      io.out(`${JSON.stringify({ file, record })}\n`);
      return EXIT_OK;
    }
    io.out(`branch ${record.name} at ${record.boundary.event} (${record.boundary.kind}), cut from round ${record.cut_from.round}: ${file}\n`);
    for (const effect of record.side_effects) io.out(`  ${effect.name} ${effect.tool_use} (${effect.category}): ${effect.effect}\n`);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ForkRejected) && !(error instanceof ChainError)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
}

export function restore(argv: string[], io: Io): number {
  const { values, positionals } = parseCommandArguments('restore', argv, { branch: { type: 'string' }, out: { type: 'string' }, data: { type: 'string' } }, 1);
  const conversation = positionals[0];
  if (conversation === undefined) throw new UsageError('restore: ID is missing');
  if (values.branch === undefined) throw new UsageError('restore: --branch NAME is missing');
  if (values.out === undefined) throw new UsageError('restore: --out DIR is missing');
  try {
    const restored = restoreBranch(path.resolve(values.data ?? DEFAULT_DATA), conversation, values.branch, path.resolve(values.out));
    io.out(`restored branch ${values.branch} as session ${restored.session}, ${restored.records} records: ${restored.file}\n`);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ForkRejected) && !(error instanceof TranscriptExists)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
}

export function label(argv: string[], io: Io): number {
  const { values, positionals } = parseCommandArguments('label', argv, { branch: { type: 'string' }, label: { type: 'string', multiple: true }, summary: { type: 'string' }, data: { type: 'string' }, by: { type: 'string' } }, 1);
  const conversation = positionals[0];
  if (conversation === undefined) throw new UsageError('label: ID is missing');
  if (values.branch === undefined) throw new UsageError('label: --branch NAME is missing');
  const data = path.resolve(values.data ?? DEFAULT_DATA);
  try {
    // The branch must exist, natural or explicit; its path is the check.
    branchPath(data, conversation, values.branch);
  } catch (error) {
    if (!(error instanceof ForkRejected)) throw error;
    io.error(`error: ${error.message}\n`);
    return EXIT_REJECTED;
  }
  const { record, file } = labelBranch(data, conversation, values.branch, { labels: values.label ?? [], summary: values.summary, by: values.by });
  io.out(`branch ${record.branch}: labels [${record.labels.join(', ')}]${record.summary !== undefined ? `, summary ${JSON.stringify(record.summary)}` : ''}: ${file}\n`);
  return EXIT_OK;
}
