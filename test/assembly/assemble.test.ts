import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { assembledStructure, collectOnce, copyOfFixtures, temporaryFolder, type AssembledStructure } from '../helpers.ts';

let data: string;
beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

const structureOf = (session: string): AssembledStructure => assembledStructure(data, session);

describe('assembly of each hazard fixture', () => {
  it('duplicates: the re-written block adds no node, and its first copies are what the talks hold', () => {
    const s = structureOf(FIXTURE_SESSIONS.duplicates);
    expect(s.counts.duplicates).toBe(4);
    expect(s.kinds('talk').length).toBe(2);
    expect(s.kinds('tool').length).toBe(1);
    expect(s.kinds('llm.call').length).toBe(3);
    expect(s.kinds('epoch').length).toBe(2);
    const ids = s.nodes.map((node) => node.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('parallel tool calls in both layouts: one call with two joined tools, never two talks or a fork', () => {
    for (const session of [FIXTURE_SESSIONS.parallelLinear, FIXTURE_SESSIONS.parallelForked]) {
      const s = structureOf(session);
      const [batch] = s.kinds('llm.call').filter((call) => (call.attrs as { fragments: number }).fragments === 2);
      const tools = s.kinds('tool');
      expect(tools.map((tool) => tool.parent)).toEqual([batch!.id, batch!.id]);
      expect(tools.map((tool) => tool.attrs?.result)).toEqual(['available', 'available']);
      expect(s.kinds('talk').length).toBe(1);
      expect(s.unresolved).toEqual([]);
    }
  });

  it('compaction: two epochs linked by the boundary’s explicit pointer, and the summary tied to its boundary', () => {
    const s = structureOf(FIXTURE_SESSIONS.compaction);
    expect(s.kinds('epoch').map((epoch) => epoch.id)).toEqual([expect.stringMatching(/^main\/epoch\/[0-9a-f-]{36}$/), 'main/epoch/start']);
    expect(s.relations.filter((relation) => relation.type === 'follows')).toEqual([expect.objectContaining({ to: 'main/epoch/start', quality: 'exact_unique', via: 'continues' })]);
    const [boundary] = s.kinds('epoch.boundary');
    expect(s.relations.filter((relation) => relation.type === 'summarizes')).toEqual([expect.objectContaining({ to: boundary!.id, quality: 'exact_unique' })]);
    expect(s.kinds('epoch.summary').length).toBe(1);
    // The second talk is in the second epoch.
    const talks = s.kinds('talk');
    expect(talks.map((talk) => talk.parent).sort()).toEqual([expect.stringMatching(/^main\/epoch\/[0-9a-f-]{36}$/), 'main/epoch/start']);
  });

  it('rewind: each prompt, including the one typed from an earlier point, starts its own talk', () => {
    const s = structureOf(FIXTURE_SESSIONS.rewind);
    expect(s.kinds('talk').length).toBe(3);
    expect(s.kinds('message.external').length).toBe(3);
    expect(s.kinds('talk').every((talk) => talk.attrs?.started_by === 'stated_trigger')).toBe(true);
  });

  it('nested agents: each child joined to the call that started it, across files, and the notice to its call', () => {
    const s = structureOf(FIXTURE_SESSIONS.nestedAgents);
    const starts = s.relations.filter((relation) => relation.type === 'starts');
    expect(starts.map((relation) => [relation.from, relation.to, relation.quality])).toEqual(
      expect.arrayContaining([
        [`${FIXTURE_AGENTS.nestedOuter}/tool/toolu_skill01`, `stream/${FIXTURE_AGENTS.nestedInner}`, 'exact_unique'],
        ['main/tool/toolu_agent01', `stream/${FIXTURE_AGENTS.nestedOuter}`, 'exact_unique'],
      ]),
    );
    expect(s.relations.filter((relation) => relation.type === 'reports').map((relation) => relation.to)).toEqual([`${FIXTURE_AGENTS.nestedOuter}/tool/toolu_skill01`]);
    // Cross-stream flow is a relation, never containment: no child node sits under a main node.
    for (const node of s.nodes.filter((entry) => entry.stream === FIXTURE_AGENTS.nestedInner)) expect(node.parent?.startsWith('main/')).not.toBe(true);
    expect(s.kinds('agent.call').length).toBe(2);
    expect(s.counts.child_streams_started).toBe(2);
  });

  it('workflow: both children joined through the journal, the missing third named as open, the launch not taken as a result', () => {
    const s = structureOf(FIXTURE_SESSIONS.workflow);
    const starts = s.relations.filter((relation) => relation.type === 'starts');
    expect(starts.map((relation) => [relation.from, relation.to, relation.via])).toEqual([
      ['main/tool/toolu_wf01', `stream/${FIXTURE_AGENTS.workflowFirst}`, 'journal'],
      ['main/tool/toolu_wf01', `stream/${FIXTURE_AGENTS.workflowSecond}`, 'journal'],
    ]);
    expect(s.unresolved).toEqual([expect.objectContaining({ kind: 'child_stream', ref: 'a0000000000000003', state: 'open' })]);
    expect(s.kinds('agent.launch_ack').length).toBe(1);
    expect(s.relations.filter((relation) => relation.type === 'reports').map((relation) => relation.to)).toEqual(['main/tool/toolu_wf01']);
    // The notice continues the talk its work came from; it does not start one.
    expect(s.kinds('talk').filter((talk) => talk.stream === 'main').length).toBe(1);
    expect(s.node(`stream/${FIXTURE_AGENTS.workflowFirst}`)).toBeDefined();
  });

  it('a bare-string tool result fails as stated, a huge line joins, an image prompt is external input', () => {
    expect(structureOf(FIXTURE_SESSIONS.bareStringResult).kinds('tool')[0]!.attrs).toMatchObject({ result: 'available', failed: true });
    expect(structureOf(FIXTURE_SESSIONS.hugeLine).kinds('tool')[0]!.attrs).toMatchObject({ result: 'available' });
    expect(structureOf(FIXTURE_SESSIONS.hugeLine).kinds('tool')[0]!.attrs).not.toHaveProperty('failed');
    expect(structureOf(FIXTURE_SESSIONS.imageAndText).kinds('message.external').length).toBe(1);
  });

  it('a pruned main transcript leaves a child stream that is recorded as an orphan, not attached by guess', () => {
    const s = structureOf(FIXTURE_SESSIONS.prunedMain);
    expect(s.node('stream/main')).toBeUndefined();
    expect(s.unresolved).toEqual([expect.objectContaining({ kind: 'orphan_stream', ref: `stream/${FIXTURE_AGENTS.prunedOnly}`, state: 'terminal' })]);
    expect(s.kinds('talk').map((talk) => talk.id)).toEqual([`${FIXTURE_AGENTS.prunedOnly}/talk`]);
  });

  it('an older version with no stated origin: talks start at apparent input, and a child nothing names is an orphan', () => {
    const s = structureOf(FIXTURE_SESSIONS.legacyAgents);
    expect(s.kinds('talk').map((talk) => talk.attrs?.started_by)).toEqual(expect.arrayContaining(['apparent_input', 'child_stream']));
    expect(s.kinds('talk').filter((talk) => talk.stream === 'main').length).toBe(1);
    expect(s.unresolved.map((entry) => entry.kind)).toEqual(['orphan_stream']);
  });

  it('a partial last line is not part of the structure until it lands', () => {
    const s = structureOf(FIXTURE_SESSIONS.partialLine);
    expect(s.counts.records).toBe(2);
  });
});

describe('structure invariants on every fixture', () => {
  it('no record lands in two talks, every node has at most one parent that exists, ids are unique', () => {
    for (const session of Object.values(FIXTURE_SESSIONS)) {
      if (!fs.existsSync(path.join(data, session))) continue;
      const s = structureOf(session);
      const ids = new Set(s.nodes.map((node) => node.id));
      expect(ids.size).toBe(s.nodes.length);
      for (const node of s.nodes) if (node.parent !== undefined) expect(ids.has(node.parent), `${session} ${node.id} → ${node.parent}`).toBe(true);
      const refs = s.nodes.filter((node) => !['session', 'stream', 'epoch', 'talk', 'run', 'segment', 'llm.call', 'branch'].includes(node.kind)).map((node) => `${node.ref?.seq}:${node.ref?.row}:${node.kind === 'agent.launch_ack' ? 'ack' : ''}`);
      expect(new Set(refs).size, session).toBe(refs.length);
      for (const relation of s.relations) {
        expect(ids.has(relation.from), relation.id).toBe(true);
        expect(ids.has(relation.to), relation.id).toBe(true);
      }
    }
  });

  it('is the same bytes however often it runs', () => {
    const once = JSON.stringify(structureOf(FIXTURE_SESSIONS.workflow));
    expect(JSON.stringify(structureOf(FIXTURE_SESSIONS.workflow))).toBe(once);
  });
});
