// `sessionizer branches ID [--data DIR] [--json]`: the conversation's branches,
// read from the folded round chain: the active path and every path a rewind
// left, each with its fork point, length, turns and summary.

import { explicitBranches } from '../../branches/explicit.ts';
import { currentLabels } from '../../branches/labels.ts';
import { command, CONVERSATION_ID, DATA_OPTION, dataFolderOf, EXIT_OK, EXIT_REJECTED, line, type Given, type Io } from '../command.ts';
import { readConversation } from './read-conversation.ts';

interface BranchAttributes {
  readonly name: string;
  readonly active: boolean;
  readonly origin: string;
  readonly fork_point: string;
  readonly length: number;
  readonly turns: number;
  readonly summary: string;
}

const OPTIONS = {
  data: DATA_OPTION,
  json: { type: 'boolean', description: 'print the natural and explicit branches as one line of JSON' },
} as const;

export const branches = command({
  name: 'branches',
  summary: 'natural and explicit branches',
  operands: [{ name: 'ID', required: true, description: 'the conversation (its session id)', shape: CONVERSATION_ID }],
  options: OPTIONS,
  examples: ['sessionizer branches 185ec7f2-62f0-481d-ac41-9661f74a6094'],
  run: listBranches,
});

function listBranches({ values, operands }: Given<typeof OPTIONS>, io: Io): number {
  const id = operands[0]!;
  const data = dataFolderOf(values.data, 'read');
  const folded = readConversation(data, id, io);
  if (!folded) return EXIT_REJECTED;
  const labels = currentLabels(data, id);
  // A caller-given summary replaces the stub; labels travel beside.
  const withLabels = <T extends { name: string; summary?: string }>(branch: T) => {
    const label = labels.get(branch.name);
    return { ...branch, labels: label?.labels ?? [], ...(label?.summary !== undefined ? { summary: label.summary } : {}) };
  };
  const list = [...folded.nodes.values()]
    .filter((node) => node.kind === 'branch')
    .map((node) => withLabels({ ...(node.attrs as unknown as BranchAttributes), ref: node.ref, revision: node.revision }))
    .sort((a, b) => (a.active === b.active ? (a.name < b.name ? -1 : 1) : a.active ? -1 : 1));
  const explicit = explicitBranches(data, id).map((entry) => ({ ...entry, record: withLabels(entry.record) }));
  if (values.json) {
    io.out(`${JSON.stringify({ conversation: id, branches: list, explicit: explicit.map((entry) => ({ ...entry.record, file: entry.file, intact: entry.intact, problem: entry.problem })) })}\n`);
    return explicit.every((entry) => entry.intact) ? EXIT_OK : EXIT_REJECTED;
  }
  for (const branch of list) {
    io.out(line(`${branch.active ? '* ' : '  '}${branch.name}  ${branch.origin}, from ${branch.fork_point}, ${branch.length} records, ${branch.turns} turns  ${branch.summary}${branch.labels.length > 0 ? `  [${branch.labels.join(', ')}]` : ''}`));
  }
  for (const { record, intact, problem, file } of explicit) {
    if (!intact) {
      io.error(line(`error: ${file}: ${problem}`));
      continue;
    }
    io.out(line(`  ${record.name}  explicit, from ${record.boundary.event} (${record.boundary.kind}) on ${record.parent_branch}, cut from round ${record.cut_from.round}, by ${record.provenance.actor}${record.provenance.reason ? `: ${record.provenance.reason}` : ''}${'summary' in record && record.summary ? `  ${record.summary}` : ''}${record.labels.length > 0 ? `  [${record.labels.join(', ')}]` : ''}`));
    for (const effect of record.side_effects) io.out(line(`      ${effect.name} ${effect.tool_use} (${effect.category}): ${effect.effect}`));
  }
  if (list.length === 0 && explicit.length === 0) io.out('no branches: the conversation has no main stream\n');
  return explicit.every((entry) => entry.intact) ? EXIT_OK : EXIT_REJECTED;
}
