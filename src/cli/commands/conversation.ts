// `sessionizer conversation ID [--data DIR] [--json] [--terms unified|native|both]`:
// the folded conversation, as stable JSON or as a readable tree.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import type { Folded } from '../../session-flow/chain.ts';
import { command, CONVERSATION_ID, DATA_OPTION, dataFolderOf, EXIT_OK, EXIT_REJECTED, line, type Given, type Io } from '../command.ts';
import { readConversation } from './read-conversation.ts';

const OPTIONS = {
  data: DATA_OPTION,
  json: { type: 'boolean', description: 'print the folded conversation as one line of stable JSON instead of a tree' },
  terms: { type: 'string', choices: ['unified', 'native', 'both'], default: 'unified', description: "name kinds in the model's words, in Claude Code's, or both" },
} as const;

type Terms = (typeof OPTIONS.terms.choices)[number];

export const conversation = command({
  name: 'conversation',
  summary: 'the folded conversation',
  operands: [{ name: 'ID', required: true, description: 'the conversation (its session id)', shape: CONVERSATION_ID }],
  options: OPTIONS,
  examples: ['sessionizer conversation 185ec7f2-62f0-481d-ac41-9661f74a6094 --terms both'],
  run: showConversation,
});

function showConversation({ values, operands }: Given<typeof OPTIONS>, io: Io): number {
  const id = operands[0]!;
  const terms: Terms = values.terms;
  const data = dataFolderOf(values.data, 'read');
  const folded = readConversation(data, id, io);
  if (!folded) return EXIT_REJECTED;
  const head = folded.rounds.at(-1)!;
  const session = [...folded.nodes.values()].find((node) => node.kind === 'session');
  const counts = (session?.attrs?.counts ?? {}) as Record<string, number>;
  const attrs = session?.attrs ?? {};
  if (values.json) {
    const strip = <T extends { t: string; tombstone?: true }>(frame: T) => {
      const { t: _t, tombstone: _tombstone, ...rest } = frame;
      return rest;
    };
    // What the conversation is called, where and with which models: the
    // session node's own attributes, lifted so a reader needs no node walk.
    const names = Object.fromEntries((['title', 'title_source', 'project', 'git_branches'] as const).flatMap((key) => (attrs[key] !== undefined ? [[key, attrs[key]]] : [])));
    io.out(
      `${JSON.stringify({
        conversation: id,
        ...names,
        models: attrs.models ?? [],
        head: { round: head.header.round, digest: head.commit.digest, through_seq: head.header.through_seq },
        rounds: folded.rounds.length,
        nodes: [...folded.nodes.values()].map((node) => ({ parent: undefined, stream: undefined, ref: undefined, refs: undefined, attrs: undefined, ...strip(node) })),
        relations: [...folded.relations.values()].map(strip),
        unresolved: [...folded.unresolved.values()].map(strip),
        counts,
      })}\n`,
    );
    return EXIT_OK;
  }
  printTree(folded, terms, io);
  io.out(`\n${line(`round ${head.header.round} of ${folded.rounds.length}, through landed sequence ${head.header.through_seq}`)}`);
  const project = attrs.project as { folder: string; cwd?: string } | undefined;
  if (attrs.title !== undefined) io.out(`title ${JSON.stringify(attrs.title)} (${String(attrs.title_source)})\n`);
  if (project !== undefined) io.out(line(`project ${project.folder}${project.cwd !== undefined ? ` (${project.cwd})` : ''}`));
  if (Array.isArray(attrs.git_branches) && attrs.git_branches.length > 0) io.out(line(`git ${attrs.git_branches.length === 1 ? 'branch' : 'branches'} ${attrs.git_branches.join(', ')}`));
  if (Array.isArray(attrs.models) && attrs.models.length > 0) io.out(line(`models ${attrs.models.join(', ')}`));
  io.out(line(`${counts.talks ?? 0} talks, ${counts.runs ?? 0} runs, ${counts.provider_calls ?? 0} provider calls, ${counts.tool_uses_joined ?? 0} of ${counts.tool_uses ?? 0} tool uses joined, ${counts.child_streams_started ?? 0} of ${counts.child_streams ?? 0} child streams started by a known call`));
  const open = [...folded.unresolved.values()].filter((entry) => entry.state !== 'resolved');
  for (const entry of open) io.out(line(`unresolved ${DEFAULT_ADAPTER.glossary.termFor(entry.kind, terms)} ${entry.ref} (${entry.state})`));
  return EXIT_OK;
}

function printTree(folded: Folded, terms: Terms, io: Io): void {
  const children = new Map<string, string[]>();
  for (const node of folded.nodes.values()) {
    const parent = node.parent ?? '';
    const list = children.get(parent);
    if (list) list.push(node.id);
    else children.set(parent, [node.id]);
  }
  // Siblings in landed order: a deterministic projection, not a claim about causality.
  const position = (id: string): number => {
    const ref = folded.nodes.get(id)?.ref;
    return ref ? ref.seq * 1e7 + ref.row : -1;
  };
  const relationsFrom = new Map<string, string[]>();
  for (const relation of folded.relations.values()) {
    const text = `${DEFAULT_ADAPTER.glossary.termFor(relation.type, terms)} → ${relation.to} [${relation.quality}, via ${relation.via}]`;
    relationsFrom.set(relation.from, [...(relationsFrom.get(relation.from) ?? []), text]);
  }
  const visit = (id: string, depth: number): void => {
    const node = folded.nodes.get(id)!;
    const attrs = node.attrs ?? {};
    const detail = node.kind === 'tool' || node.kind === 'agent.call' ? ` ${attrs.name}${attrs.result === 'unavailable' ? ' (result unavailable)' : ''}` : node.kind === 'llm.call' ? ` ${attrs.fragments} fragments` : '';
    const where = node.ref ? ` @${node.ref.seq}:${node.ref.row}` : '';
    io.out(line(`${'  '.repeat(depth)}${DEFAULT_ADAPTER.glossary.termFor(node.kind, terms)}${detail}${where}  ${id}`));
    for (const text of relationsFrom.get(id) ?? []) io.out(line(`${'  '.repeat(depth + 1)}${text}`));
    for (const child of (children.get(id) ?? []).sort((a, b) => position(a) - position(b) || (a < b ? -1 : 1))) visit(child, depth + 1);
  };
  for (const root of children.get('') ?? []) visit(root, 0);
}
