import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { groupProviderCalls } from '../../src/assembly/provider-calls.ts';
import { removeDuplicates } from '../../src/assembly/duplicates.ts';
import { partitionStreams } from '../../src/assembly/streams.ts';
import { joinTools } from '../../src/assembly/tools.ts';
import { indexPath, loadSessionIndex, type IndexEntry } from '../../src/index/session-index.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

let data: string;
let root: string;
beforeAll(() => {
  root = copyOfFixtures({ forFile: true });
  data = temporaryFolder({ forFile: true });
  collectOnce(root, data);
});

function stages(session: string) {
  const index = loadSessionIndex(data, session);
  const removal = removeDuplicates(index.entries);
  const partition = partitionStreams(removal.canonical);
  const streams = [...partition.streams.values()].map((stream) => {
    const calls = groupProviderCalls(stream.id, stream.records);
    return { stream, calls, tools: joinTools(stream.id, stream.records, calls) };
  });
  return { index, removal, partition, streams, of: (id: string) => streams.find((entry) => entry.stream.id === id)! };
}

describe('the index', () => {
  it('never covers for a .sd that is gone: the .sd is read, and its absence named', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    loadSessionIndex(data, FIXTURE_SESSIONS.compaction);
    expect(fs.existsSync(indexPath(data, FIXTURE_SESSIONS.compaction))).toBe(true);
    const [first] = landedFilesOfSession(data, FIXTURE_SESSIONS.compaction);
    const sessionData = first!.path.replace(/\.jsonl$/, '.sd');
    fs.rmSync(sessionData);
    expect(() => loadSessionIndex(data, FIXTURE_SESSIONS.compaction)).toThrow(sessionData);
  });

  it('holds identifiers only, is saved, and is rebuilt the same when deleted', () => {
    const first = loadSessionIndex(data, FIXTURE_SESSIONS.parallelForked);
    const saved = fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.parallelForked), 'utf8');
    expect(saved).not.toContain('tests passed'); // tool output is content, never indexed
    fs.rmSync(indexPath(data, FIXTURE_SESSIONS.parallelForked));
    expect(loadSessionIndex(data, FIXTURE_SESSIONS.parallelForked)).toEqual(first);
    expect(fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.parallelForked), 'utf8')).toBe(saved);
  });

  it('is rebuilt when new evidence has landed, and when it is damaged', () => {
    const before = loadSessionIndex(data, FIXTURE_SESSIONS.rewind);
    fs.writeFileSync(indexPath(data, FIXTURE_SESSIONS.rewind), '{"schema":"index/1","session":"x"}\n{oops\n');
    expect(loadSessionIndex(data, FIXTURE_SESSIONS.rewind)).toEqual(before);
    // What a crash can leave of an index, which is not flushed: nothing, or its start.
    const whole = fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.rewind));
    for (const left of [whole.subarray(0, 0), whole.subarray(0, whole.indexOf('\n') + 1), whole.subarray(0, whole.length - 10)]) {
      fs.writeFileSync(indexPath(data, FIXTURE_SESSIONS.rewind), left);
      expect(loadSessionIndex(data, FIXTURE_SESSIONS.rewind)).toEqual(before);
      expect(fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.rewind)).equals(whole)).toBe(true);
    }
    fs.appendFileSync(`${root}/-home-user-fixtures-rewind/${FIXTURE_SESSIONS.rewind}.jsonl`, '{"type":"user","uuid":"new-1","message":{"role":"user","content":"more"}}\n{"type":"user","uuid":"new-2","message":{"role":"user","content":"and more"}}\n');
    collectOnce(root, data);
    const inode = fs.statSync(indexPath(data, FIXTURE_SESSIONS.rewind)).ino;
    const after = loadSessionIndex(data, FIXTURE_SESSIONS.rewind);
    expect(after.throughSeq).toBe(before.throughSeq + 1);
    expect(after.entries.at(-1)).toMatchObject({ id: 'new-2', seq: before.throughSeq + 1, row: 2 });
    // Extended by the new file alone, where it is, it is what a rebuild from every .sd gives.
    expect(fs.statSync(indexPath(data, FIXTURE_SESSIONS.rewind)).ino).toBe(inode);
    const extended = fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.rewind));
    fs.rmSync(indexPath(data, FIXTURE_SESSIONS.rewind));
    expect(loadSessionIndex(data, FIXTURE_SESSIONS.rewind)).toEqual(after);
    expect(fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.rewind)).equals(extended)).toBe(true);
    // What a crash during the extension can leave: the old entries, the old summary cut off, a new entry.
    const oldEntries = whole.subarray(0, whole.lastIndexOf('\n', whole.length - 2) + 1);
    const newEntry = extended.subarray(oldEntries.length, extended.indexOf('\n', oldEntries.length) + 1);
    fs.writeFileSync(indexPath(data, FIXTURE_SESSIONS.rewind), Buffer.concat([oldEntries, newEntry]));
    expect(loadSessionIndex(data, FIXTURE_SESSIONS.rewind)).toEqual(after);
    expect(fs.readFileSync(indexPath(data, FIXTURE_SESSIONS.rewind)).equals(extended)).toBe(true);
  });
});

describe('the index of identifiers beyond ASCII', () => {
  it('holds them as text, though the rows are read as strings of bytes', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const records = [
      { type: 'user', uuid: 'идентификатор-1', parentUuid: null, message: { role: 'user', content: 'héllo 🎉' } },
      { type: 'assistant', uuid: 'réponse-2', parentUuid: 'идентификатор-1', message: { id: 'msg_é', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_é', name: 'outil_日本', input: { clé: 'é' } }] } },
    ];
    fs.appendFileSync(`${root}/-home-user-fixtures-rewind/${FIXTURE_SESSIONS.rewind}.jsonl`, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    collectOnce(root, data);
    const entries = loadSessionIndex(data, FIXTURE_SESSIONS.rewind).entries;
    expect(entries.at(-2)).toMatchObject({ id: 'идентификатор-1' });
    expect(entries.at(-1)).toMatchObject({ id: 'réponse-2', parent: 'идентификатор-1', call: 'msg_é', calls: [{ id: 'toolu_é', name: 'outil_日本' }] });
  });
});

describe('stage 1: duplicate records', () => {
  it('keeps the first copy of each re-written record and keeps every copy out of the canonical view', () => {
    const { index, removal } = stages(FIXTURE_SESSIONS.duplicates);
    expect(removal.copies.length).toBe(4);
    for (const { copy, first } of removal.copies) {
      expect(first.row).toBeLessThan(copy.row);
      expect(removal.canonical).toContain(first);
      expect(removal.canonical).not.toContain(copy);
    }
    // The copy's rewritten cycle id is not what survives.
    const prompt = removal.canonical.find((entry) => entry.flags.includes('external_input'))!;
    expect(prompt.cycle).toBe('p-1');
    expect(removal.canonical.length).toBe(index.entries.length - 4);
  });

  it('never treats records without an id as copies of each other', () => {
    const { removal } = stages(FIXTURE_SESSIONS.malformedLines);
    expect(removal.copies).toEqual([]);
  });
});

describe('stage 2: streams', () => {
  it('partitions by the file a record landed in, with sidecars and runs apart', () => {
    const nested = stages(FIXTURE_SESSIONS.nestedAgents).partition;
    expect([...nested.streams.keys()].sort()).toEqual(['main', FIXTURE_AGENTS.nestedOuter, FIXTURE_AGENTS.nestedInner].sort());
    expect(nested.streams.get(FIXTURE_AGENTS.nestedInner)!.sidecar.map((entry) => entry.startedBy)).toEqual([FIXTURE_AGENTS.nestedOuter]);
    const workflow = stages(FIXTURE_SESSIONS.workflow).partition;
    expect([...workflow.runs.values()].flat().map((entry) => entry.kind).sort()).toEqual(['journal', 'journal', 'journal', 'journal', 'journal', 'workflow_manifest', 'workflow_script', 'workflow_script']);
  });
});

describe('stage 3: provider calls', () => {
  it('groups fragments by call id across interleaved tool results, and takes usage from the last fragment', () => {
    const { of } = stages(FIXTURE_SESSIONS.parallelForked);
    const [batch, answer] = of('main').calls;
    expect(batch!.id).toBe('msg_parallel_forked_01');
    expect(batch!.fragments.length).toBe(2);
    expect(batch!.usage).toEqual({ input: 100, output: 20, cache_read: 1000, cache_write: 50, output_final: true });
    expect(answer!.fragments.length).toBe(1);
  });

  it('does not sum a child stream’s streaming partials', () => {
    const { of } = stages(FIXTURE_SESSIONS.nestedAgents);
    const call = of(FIXTURE_AGENTS.nestedInner).calls[0]!;
    expect(call.fragments.map((fragment) => fragment.usage?.output)).toEqual([1, 40]);
    expect(call.usage).toMatchObject({ output: 40 });
  });

  it('reports a call that never said why it stopped with its input as observed and its last output as a lower bound, and keeps client-made calls apart', () => {
    const entry = (row: number, flags: IndexEntry['flags'], output: number): IndexEntry => ({ seq: 1, row, place: 'streams/main', kind: 'transcript', id: `r${row}`, call: 'msg_x', from: 'agent', flags, usage: { input: 7, cache_read: 900, cache_write: 40, output }, parts: ['text'], calls: [], results: [] });
    const [stub] = groupProviderCalls('main', [entry(1, [], 1), entry(2, [], 3)]);
    expect(stub!.usage).toEqual({ input: 7, cache_read: 900, cache_write: 40, output: 3, output_final: false });
    const { usage: _usage, ...bare } = entry(3, [], 0);
    expect(groupProviderCalls('main', [bare])[0]!.usage).toBe('unavailable');
    const [synthetic] = groupProviderCalls('main', [{ ...entry(1, ['synthetic', 'finished'], 0), call: 'a3b1c2d4-0000-4000-8000-000000000000' }]);
    expect(synthetic!.synthetic).toBe(true);
  });
});

describe('stage 4: tools', () => {
  it('joins each tool use of both parallel layouts to exactly its result', () => {
    for (const session of [FIXTURE_SESSIONS.parallelLinear, FIXTURE_SESSIONS.parallelForked]) {
      const { steps, orphanResults } = stages(session).of('main').tools;
      expect(steps.map((step) => [step.name, step.result === 'unavailable' ? 'unavailable' : step.result.results[0]!.of])).toEqual([
        [steps[0]!.name, steps[0]!.id],
        [steps[1]!.name, steps[1]!.id],
      ]);
      expect(orphanResults).toEqual([]);
    }
  });

  it('carries failure only as the runtime stated it', () => {
    const [failed] = stages(FIXTURE_SESSIONS.bareStringResult).of('main').tools.steps;
    expect(failed!.failed).toBe(true);
    const [silent] = stages(FIXTURE_SESSIONS.hugeLine).of('main').tools.steps;
    expect(silent!.result).not.toBe('unavailable');
    expect(silent!.failed).toBeUndefined();
  });

  it('says unavailable for a tool use whose result never came, instead of guessing one', () => {
    const use: IndexEntry = { seq: 1, row: 1, place: 'streams/main', kind: 'transcript', id: 'u1', call: 'msg_1', from: 'agent', flags: [], parts: ['call'], calls: [{ id: 'toolu_1', name: 'Bash' }], results: [] };
    const calls = groupProviderCalls('main', [use]);
    expect(joinTools('main', [use], calls).steps).toEqual([{ id: 'toolu_1', name: 'Bash', stream: 'main', call: 'msg_1', use, result: 'unavailable', failed: undefined }]);
  });
});
