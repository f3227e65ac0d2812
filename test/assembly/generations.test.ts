// The fixtures of every generation of Claude Code file: re-saved files
// without provider ids, 1.0 children written into their parent's file, a
// file that begins in the middle of an interaction, a last line without its
// newline; and a data folder whose chain an older parser built.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PARSER_VERSION, policyOf } from '../../src/assembly/assemble.ts';
import { assemble } from '../../src/parse/structure.ts';
import { QUIET_TAIL_MS } from '../../src/collection/source-verdict.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { appendRound, readChain } from '../../src/session-flow/chain.ts';
import type { FlowNode } from '../../src/model/structure.ts';
import { verifyChains } from '../../src/verify/chains.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { assembledStructure, collectOnce, copyOfFixtures, foldedEntities, landedOf, temporaryFolder, type AssembledStructure } from '../helpers.ts';

let data: string;
beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

const structureOf = (session: string): AssembledStructure => assembledStructure(data, session);

function talkOf(structure: ReturnType<typeof structureOf>, id: string): FlowNode | undefined {
  for (let at = structure.node(id); at; at = at.parent !== undefined ? structure.node(at.parent) : undefined) if (at.kind === 'talk') return at;
  return undefined;
}

describe('every generation of Claude Code file', () => {
  it('a re-saved file without message ids: each assistant record is a call of its own, its tools join their results, and the counts say so', () => {
    const s = structureOf(FIXTURE_SESSIONS.resavedWithoutIds);
    const calls = s.kinds('llm.call');
    // One record per block: thinking and a tool use, two parallel tool uses, a reply.
    expect(calls.length).toBe(5);
    expect(calls.every((call) => call.attrs?.provider_id === 'unavailable' && call.attrs.fragments === 1)).toBe(true);
    expect(s.counts.provider_calls_without_id).toBe(5);
    expect(s.kinds('tool').map((tool) => [tool.attrs?.name, tool.attrs?.result])).toEqual([
      ['Bash', 'available'],
      ['Read', 'available'],
      ['Read', 'available'],
    ]);
    expect(s.counts.orphan_results).toBe(0);
    expect(s.kinds('context.injection')).toEqual([]);
    expect(s.kinds('message.assistant').length).toBe(1);
    expect(s.kinds('thinking').length).toBe(1);
  });

  it('Claude Code 1.0 children written into the parent file: each is a child stream started by the Task that handed it its prompt', () => {
    const s = structureOf(FIXTURE_SESSIONS.inlineSidechains);
    const children = s.kinds('stream').filter((stream) => stream.attrs?.child === true);
    expect(children.map((child) => child.attrs?.records as number).sort()).toEqual([2, 4]);
    const starts = s.relations.filter((relation) => relation.type === 'starts');
    expect(starts.map((relation) => [relation.from, relation.quality, relation.via]).sort()).toEqual([
      ['main/tool/toolu_inline01', 'strong_inference', 'prompt'],
      ['main/tool/toolu_inline02', 'strong_inference', 'prompt'],
    ]);
    expect(new Set(starts.map((relation) => relation.to))).toEqual(new Set(children.map((child) => child.id)));
    expect(s.kinds('agent.call').map((call) => call.attrs?.result)).toEqual(['available', 'available']);
    // The main stream holds its own records only: one talk, two calls with their Tasks, the reply.
    const main = s.kinds('stream').find((stream) => stream.id === 'stream/main')!;
    expect(main.attrs?.records).toBe(6);
    expect(s.kinds('talk').filter((talk) => talk.stream === 'main').length).toBe(1);
    // Each child reads as its own talk, opened by the prompt it was handed.
    for (const child of children) {
      const stream = child.id.slice('stream/'.length);
      expect(s.kinds('message.external').filter((node) => node.stream === stream).length).toBe(1);
    }
    expect(s.counts.tool_uses_joined).toBe(s.counts.tool_uses);
    expect(s.unresolved).toEqual([]);
  });

  it('a file whose first record answers a call in a file that is not here: what it holds is read in talks whose start is not in the evidence', () => {
    const s = structureOf(FIXTURE_SESSIONS.continuedFile);
    const talks = s.kinds('talk');
    expect(talks.map((talk) => talk.attrs?.started_by)).toEqual(['start_not_in_evidence']);
    for (const node of [...s.kinds('llm.call'), ...s.kinds('tool')]) expect(talkOf(s, node.id), node.id).toBe(talks[0]);
    expect(s.unresolved.map((entry) => entry.kind)).toEqual(['orphan_result']);
  });
});

describe('a last line without its newline', () => {
  const quietFile = (root: string): string => path.join(root, '-home-user-fixtures-quiet-last-line', `${FIXTURE_SESSIONS.quietLastLine}.jsonl`);
  const sourceOf = (report: ReturnType<typeof collectOnce>) => report.sessions.find((session) => session.session === FIXTURE_SESSIONS.quietLastLine)!.sources[0]!;

  it('is a write in progress while the file changes, and lands once it has been quiet long enough, as the whole record it is, and only once', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const file = quietFile(root);
    const writing = sourceOf(collectOnce(root, data));
    expect(landedOf(data, FIXTURE_SESSIONS.quietLastLine).flatMap((landed) => landed.records).length).toBe(1);
    expect(writing.inFlightBytes).toBeGreaterThan(0);
    expect(writing.message).toMatch(/are a write in progress; left for the next pass$/);
    const quietSince = new Date(Date.now() - QUIET_TAIL_MS - 60_000);
    fs.utimesSync(file, quietSince, quietSince);
    const source = sourceOf(collectOnce(root, data));
    expect(source.inFlightBytes).toBe(0);
    const records = landedOf(data, FIXTURE_SESSIONS.quietLastLine).flatMap((landed) => landed.records);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(records.map((record) => record.payload.toString())).toEqual(lines);
    expect(sourceOf(collectOnce(root, data)).status).toBe('unchanged');
    expect(landedOf(data, FIXTURE_SESSIONS.quietLastLine).flatMap((landed) => landed.records).length).toBe(2);
    const s = assemble(loadSessionIndex(data, FIXTURE_SESSIONS.quietLastLine), { conversation: FIXTURE_SESSIONS.quietLastLine, throughSeq: 99 });
    expect(s.nodes.filter((node) => node.kind === 'message.assistant').length).toBe(1);
  });

  it('is left out, and said so, when the quiet file ends in bytes that are not a whole record', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const file = quietFile(root);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, -10));
    const quietSince = new Date(Date.now() - QUIET_TAIL_MS - 60_000);
    fs.utimesSync(file, quietSince, quietSince);
    for (let pass = 0; pass < 2; pass++) {
      const source = sourceOf(collectOnce(root, data));
      expect(source.inFlightBytes).toBe(Buffer.byteLength(text.slice(text.indexOf('\n') + 1, -10)));
      expect(source.message).toMatch(/are not a whole record, and the file has not changed for 10 minutes; they are left out until a newline ends them$/);
    }
    expect(landedOf(data, FIXTURE_SESSIONS.quietLastLine).flatMap((landed) => landed.records).length).toBe(1);
  });
});

describe('a data folder an older parser built', () => {
  it('is parsed again: the new round supersedes what the older parser folded to, and the chain stays sound', () => {
    const local = temporaryFolder();
    collectOnce(copyOfFixtures(), local);
    const session = FIXTURE_SESSIONS.inlineSidechains;
    const index = loadSessionIndex(local, session);
    // What an older build left: a round under another parser's name, with a structure that lacks the child streams.
    const older = assemble({ ...index, entries: index.entries.filter((entry) => !entry.flags.includes('sidechain')) }, { conversation: session, throughSeq: index.throughSeq });
    appendRound(local, { conversation: session, session, structure: older, throughSeq: index.throughSeq, landed: index.files, parser: 'sessionizer-assembly/1', policy: policyOf({}) });
    const parsed = parseSession(local, session);
    expect(parsed.unchanged).toBe(false);
    const chain = readChain(local, session);
    expect(chain.rounds.map((round) => round.header.parser)).toEqual(['sessionizer-assembly/1', PARSER_VERSION]);
    const full = assemble(index, { conversation: session, throughSeq: index.throughSeq });
    expect(foldedEntities(chain)).toEqual({ nodes: full.nodes, relations: full.relations, unresolved: full.unresolved });
    expect(parseSession(local, session).unchanged).toBe(true);
    expect(verifyChains(local, verifyStorage(local).landed).problems).toEqual([]);
  });
});
