// `sessionizer fork ID --at EVENT [--name NAME]`: an explicit branch at a
// stable boundary, and `sessionizer restore ID --branch NAME --out DIR`: a
// branch as a transcript that can be resumed.

import { TranscriptExists } from '../../adapters/adapter.ts';
import path from 'node:path';
import { branchPath, fork as makeFork, ForkRejected } from '../../branches/explicit.ts';
import { labelBranch } from '../../branches/labels.ts';
import { restoreBranch } from '../../branches/restore.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { restoreRefusal } from '../../export/destination.ts';
import { BRANCH_NAME, command, CONVERSATION_ID, DATA_OPTION, dataFolderOf, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, line, NEW_BRANCH_NAME, type Given, type Io } from '../command.ts';

const CONVERSATION_OPERAND = { name: 'ID', required: true, description: 'the conversation (its session id)', shape: CONVERSATION_ID } as const;
const BY_OPTION = { type: 'string', value: 'ACTOR', description: 'who makes the record (default: $SESSIONIZER_ACTOR, else the user name)' } as const;

const FORK_OPTIONS = {
  at: { type: 'string', value: 'EVENT', required: true, description: 'the boundary: a record id of the main stream, or root' },
  name: { type: 'string', value: 'NAME', description: 'the branch name (default: one made from the boundary)', shape: NEW_BRANCH_NAME },
  data: DATA_OPTION,
  by: BY_OPTION,
  reason: { type: 'string', value: 'TEXT', description: 'why the branch is made, kept in its provenance' },
  'allow-tool-closed': { type: 'boolean', description: 'allow a boundary that closes the last open tool use inside a run' },
  json: { type: 'boolean', description: 'print the branch record and its file as one line of JSON' },
} as const;

export const fork = command({
  name: 'fork',
  summary: 'explicit branch at a stable boundary',
  operands: [CONVERSATION_OPERAND],
  options: FORK_OPTIONS,
  examples: ['sessionizer fork 185ec7f2-62f0-481d-ac41-9661f74a6094 --at root --name try-again --reason "start over"'],
  run: forkConversation,
});

const RESTORE_OPTIONS = {
  branch: { type: 'string', value: 'NAME', required: true, description: 'the branch to restore, natural or explicit', shape: BRANCH_NAME },
  out: { type: 'string', value: 'DIR', required: true, description: 'the folder to write the transcript into (a projects folder of Claude Code, say)' },
  data: DATA_OPTION,
} as const;

export const restore = command({
  name: 'restore',
  summary: 'the branch as a resumable transcript',
  operands: [CONVERSATION_OPERAND],
  options: RESTORE_OPTIONS,
  examples: ['sessionizer restore 185ec7f2-62f0-481d-ac41-9661f74a6094 --branch try-again --out restored'],
  run: restoreConversationBranch,
});

const LABEL_OPTIONS = {
  branch: { type: 'string', value: 'NAME', required: true, description: 'the branch to label, natural or explicit', shape: BRANCH_NAME },
  label: { type: 'string', value: 'LABEL', multiple: true, description: 'a label; the labels given replace the earlier ones' },
  summary: { type: 'string', value: 'TEXT', description: "the branch's summary, in place of the stub" },
  data: DATA_OPTION,
  by: BY_OPTION,
} as const;

export const label = command({
  name: 'label',
  summary: 'labels and a summary for a branch, as a new record',
  operands: [CONVERSATION_OPERAND],
  options: LABEL_OPTIONS,
  examples: ['sessionizer label 185ec7f2-62f0-481d-ac41-9661f74a6094 --branch try-again --label kept --summary "the approach that worked"'],
  run: labelConversationBranch,
});

function forkConversation({ values, operands }: Given<typeof FORK_OPTIONS>, io: Io): number {
  const conversation = operands[0]!;
  const data = dataFolderOf(values.data, 'write');
  try {
    const { record, file } = makeFork(data, { conversation, at: values.at, name: values.name, by: values.by, reason: values.reason, allowToolClosed: values['allow-tool-closed'] });
    if (values.json) {
      io.out(`${JSON.stringify({ file, record })}\n`);
      return EXIT_OK;
    }
    io.out(line(`branch ${record.name} at ${record.boundary.event} (${record.boundary.kind}), cut from round ${record.cut_from.round}: ${file}`));
    for (const effect of record.side_effects) io.out(line(`  ${effect.name} ${effect.tool_use} (${effect.category}): ${effect.effect}`));
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ForkRejected) && !(error instanceof ChainError)) throw error;
    io.error(line(`error: ${error.message}`));
    return EXIT_REJECTED;
  }
}

function restoreConversationBranch({ values, operands }: Given<typeof RESTORE_OPTIONS>, io: Io): number {
  const conversation = operands[0]!;
  const data = dataFolderOf(values.data, 'read');
  const out = path.resolve(values.out);
  const refusal = restoreRefusal(out, data);
  if (refusal !== undefined) {
    io.error(line(`sessionizer restore: --out ${values.out}: ${refusal}`));
    return EXIT_USAGE;
  }
  try {
    const restored = restoreBranch(data, conversation, values.branch, out);
    io.out(line(`restored branch ${values.branch} as session ${restored.session}, ${restored.records} records: ${restored.file}`));
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ForkRejected) && !(error instanceof TranscriptExists)) throw error;
    io.error(line(`error: ${error.message}`));
    return EXIT_REJECTED;
  }
}

function labelConversationBranch({ values, operands }: Given<typeof LABEL_OPTIONS>, io: Io): number {
  const conversation = operands[0]!;
  const data = dataFolderOf(values.data, 'write');
  try {
    // The branch must exist, natural or explicit; its path is the check.
    branchPath(data, conversation, values.branch);
  } catch (error) {
    if (!(error instanceof ForkRejected)) throw error;
    io.error(line(`error: ${error.message}`));
    return EXIT_REJECTED;
  }
  const { record, file } = labelBranch(data, conversation, values.branch, { labels: values.label ?? [], summary: values.summary, by: values.by });
  io.out(`branch ${record.branch}: labels [${record.labels.join(', ')}]${record.summary !== undefined ? `, summary ${JSON.stringify(record.summary)}` : ''}: ${file}\n`);
  return EXIT_OK;
}
