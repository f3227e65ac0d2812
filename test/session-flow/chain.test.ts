import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { PARSER_VERSION } from '../../src/assembly/assemble.ts';
import { assemble } from '../../src/parse/structure.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { appendRound, ChainError, conversationFolder, readChain, roundFiles } from '../../src/session-flow/chain.ts';
import type { FlowNode } from '../../src/model/structure.ts';
import { verifyChains } from '../../src/verify/chains.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, completeLines, copyOfFixtures, foldedEntities, temporaryFolder } from '../helpers.ts';

function fullAssembly(data: string, session: string) {
  const index = loadSessionIndex(data, session);
  const structure = assemble(index, { conversation: session, throughSeq: index.throughSeq });
  return { nodes: structure.nodes, relations: structure.relations, unresolved: structure.unresolved };
}

/** Lands a copy of the fixtures with every transcript cut to its first `share` of lines; returns a function that lands more. */
function growingFixtures(): { root: string; data: string; grow: (share: number) => void } {
  const root = copyOfFixtures();
  const data = temporaryFolder();
  const transcripts = new Map<string, Buffer[]>();
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.jsonl')) transcripts.set(full, completeLines(full));
    }
  };
  walk(root);
  let written = new Map<string, number>();
  const grow = (share: number): void => {
    const next = new Map<string, number>();
    for (const [file, lines] of transcripts) {
      const count = Math.ceil(lines.length * share);
      const already = written.get(file) ?? 0;
      const added = Buffer.concat(lines.slice(already, count).flatMap((line) => [line, Buffer.from('\n')]));
      if (already === 0) fs.writeFileSync(file, added);
      else fs.appendFileSync(file, added);
      next.set(file, count);
    }
    written = next;
    collectOnce(root, data);
  };
  return { root, data, grow };
}

describe('the round chain', () => {
  it('folds rounds 1..N to exactly what one assembly of all the evidence gives, with the evidence in three collections', () => {
    const { data, grow } = growingFixtures();
    for (const share of [0.34, 0.67, 1]) {
      grow(share);
      for (const session of Object.values(FIXTURE_SESSIONS)) if (fs.existsSync(path.join(data, session))) parseSession(data, session);
    }
    let rounds = 0;
    for (const session of Object.values(FIXTURE_SESSIONS)) {
      if (!fs.existsSync(path.join(data, session))) continue;
      const folded = readChain(data, session);
      rounds += folded.rounds.length;
      expect(foldedEntities(folded), session).toEqual(fullAssembly(data, session));
    }
    expect(rounds).toBeGreaterThan(Object.keys(FIXTURE_SESSIONS).length);
    expect(verifyChains(data, verifyStorage(data).landed).problems).toEqual([]);
  });

  it('gives byte-identical rounds for the same evidence and versions', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const session = FIXTURE_SESSIONS.workflow;
    parseSession(data, session);
    const first = roundFiles(data, session).map((file) => [path.basename(file), fs.readFileSync(file, 'utf8')]);
    fs.rmSync(conversationFolder(data, session), { recursive: true });
    parseSession(data, session);
    expect(roundFiles(data, session).map((file) => [path.basename(file), fs.readFileSync(file, 'utf8')])).toEqual(first);
    // No time of parsing anywhere in a round: only what the evidence says.
    expect(Object.keys(JSON.parse(first[0]![1]!.split('\n')[0]!)).sort()).toEqual(['conversation', 'from_seq', 'input_digest', 'parser', 'policy', 'previous', 'round', 'schema', 'session', 't', 'through_seq']);
  });

  it('appends nothing when nothing changed, and revises an entity in a later round rather than editing an earlier one', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const session = FIXTURE_SESSIONS.bareStringResult;
    const transcript = path.join(root, '-home-user-fixtures-bare-string-result', `${session}.jsonl`);
    const lines = completeLines(transcript);
    // The tool result has not been written yet.
    fs.writeFileSync(transcript, Buffer.concat(lines.slice(0, 2).flatMap((line) => [line, Buffer.from('\n')])));
    collectOnce(root, data);
    expect(parseSession(data, session).unchanged).toBe(false);
    // Nothing new was landed, so the second parse does not assemble at all.
    const again = parseSession(data, session);
    expect(again.unchanged).toBe(true);
    expect(again.round).toBeUndefined();
    const first = readChain(data, session);
    expect([...first.unresolved.values()]).toEqual([expect.objectContaining({ kind: 'tool_result', state: 'open', revision: 1 })]);
    const roundOne = fs.readFileSync(roundFiles(data, session)[0]!);

    fs.appendFileSync(transcript, Buffer.concat(lines.slice(2).flatMap((line) => [line, Buffer.from('\n')])));
    collectOnce(root, data);
    const second = parseSession(data, session);
    expect(second.unchanged).toBe(false);
    expect(second.round!.header).toMatchObject({ round: 2, from_seq: 2, through_seq: 2, previous: first.rounds[0]!.commit.digest });
    expect(second.changed.resolved).toBe(1);
    const folded = readChain(data, session);
    expect([...folded.unresolved.values()]).toEqual([expect.objectContaining({ kind: 'tool_result', state: 'resolved', revision: 2 })]);
    expect(folded.nodes.get('main/tool/toolu_bare01')).toMatchObject({ revision: 2, attrs: { result: 'available', failed: true } });
    expect(fs.readFileSync(roundFiles(data, session)[0]!).equals(roundOne)).toBe(true);
    expect(fs.statSync(roundFiles(data, session)[1]!).mode & 0o777).toBe(0o444);
  });

  it('rewrites an entity exactly when its JSON text would change: a key that is undefined is no key, another key order is a change', () => {
    const data = temporaryFolder();
    const input = (nodes: FlowNode[], throughSeq: number) => ({ conversation: 'c1', session: 'c1', structure: { nodes, relations: [], unresolved: [], counts: {} }, throughSeq, landed: [], parser: PARSER_VERSION, policy: 'p' });
    const talk: FlowNode = { id: 'talk/1', kind: 'talk', ref: { seq: 1, row: 1 }, attrs: { title: 'first', tags: ['a', 'b'], nested: { depth: 1 } } };
    const step: FlowNode = { id: 'step/1', kind: 'tool', parent: 'talk/1', attrs: { name: 'Bash' } };
    const call: FlowNode = { id: 'call/1', kind: 'llm.call', refs: [{ seq: 1, row: 2 }], attrs: { model: 'm' } };
    const first = appendRound(data, input([talk, step, call], 1));
    expect(first.changed.written).toBe(3);
    const second = appendRound(data, input([
      // The same text: an undefined value is left out of JSON.
      { ...talk, parent: undefined, attrs: { ...talk.attrs, extra: undefined } },
      // The same keys in another order: other bytes, so a new revision.
      { kind: 'tool', id: 'step/1', parent: 'talk/1', attrs: { name: 'Bash' } },
      // A change deep inside.
      { ...call, refs: [{ seq: 1, row: 3 }] },
    ] as FlowNode[], 2));
    expect(second.round!.entities.map((frame) => frame.id)).toEqual(['call/1', 'step/1']);
    const folded = readChain(data, 'c1');
    expect(folded.nodes.get('talk/1')).toMatchObject({ revision: 1 });
    expect(folded.nodes.get('call/1')).toMatchObject({ revision: 2, refs: [{ seq: 1, row: 3 }] });
  });

  it('writes a round of megabytes line by line, never held as one string or written at once, its digest that of its lines', () => {
    const data = temporaryFolder();
    const nodes: FlowNode[] = Array.from({ length: 3000 }, (_, index) => ({ id: `talk/${index}`, kind: 'talk', ref: { seq: 1, row: index }, attrs: { title: `${index} ${'x'.repeat(500)}` } }));
    const write = vi.spyOn(fs, 'writeSync');
    try {
      appendRound(data, { conversation: 'c1', session: 'c1', structure: { nodes, relations: [], unresolved: [], counts: {} }, throughSeq: 1, landed: [], parser: PARSER_VERSION, policy: 'p' });
      const largest = Math.max(...write.mock.calls.map(([, bytes, offset]) => (bytes as unknown as Buffer).length - ((offset as number | undefined) ?? 0)));
      expect(largest).toBeLessThanOrEqual(64 << 10);
    } finally {
      write.mockRestore();
    }
    const [file] = roundFiles(data, 'c1');
    const text = fs.readFileSync(file!, 'utf8');
    expect(text.length).toBeGreaterThan(1 << 20);
    const body = text.slice(0, text.lastIndexOf('{"t":"commit"'));
    const digest = crypto.createHash('sha256').update(body).digest('hex');
    expect(JSON.parse(text.slice(body.length))).toMatchObject({ t: 'commit', digest });
    expect(path.basename(file!)).toContain(digest.slice(0, 12));
    expect(readChain(data, 'c1').nodes.size).toBe(3000);
  });

  it('continues a chain an older parser built, with a round of this parser that folds to what it assembles', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const session = FIXTURE_SESSIONS.unfinishedCall;
    const index = loadSessionIndex(data, session);
    // What an older parser left: the calls as it read them, with no usage.
    const older = assemble(index, { conversation: session, throughSeq: index.throughSeq });
    const nodes = older.nodes.map((node) => (node.kind === 'llm.call' ? { ...node, attrs: { ...node.attrs, usage: 'unavailable' } } : node));
    appendRound(data, { conversation: session, session, structure: { ...older, nodes }, throughSeq: index.throughSeq, landed: index.files, parser: 'sessionizer-assembly/0', policy: 'idle_gap_ms=600000' });
    const parsed = parseSession(data, session);
    expect(parsed.unchanged).toBe(false);
    const folded = readChain(data, session);
    expect(folded.rounds.map((round) => round.header.parser)).toEqual(['sessionizer-assembly/0', PARSER_VERSION]);
    expect(foldedEntities(folded)).toEqual(fullAssembly(data, session));
    expect(parseSession(data, session).unchanged).toBe(true);
  });

  it('refuses to extend a chain built with another policy', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const session = FIXTURE_SESSIONS.rewind;
    parseSession(data, session);
    expect(() => parseSession(data, session, { idleGap: 60_000 })).toThrow(ChainError);
    expect(() => parseSession(data, session, { idleGap: 60_000 })).toThrow(`its chain was built by ${PARSER_VERSION} with idle_gap_ms=600000; this build is ${PARSER_VERSION} with idle_gap_ms=60000`);
  });

  it('reports an edited round, a missing round and skipped evidence, each with its file', () => {
    const { data, grow } = growingFixtures();
    const session = FIXTURE_SESSIONS.nestedAgents;
    for (const share of [0.34, 0.67, 1]) {
      grow(share);
      parseSession(data, session);
    }
    const files = roundFiles(data, session);
    expect(files.length).toBe(3);
    const relative = (file: string) => path.relative(data, file).split(path.sep).join('/');
    // An edited byte in round 3.
    fs.chmodSync(files[2]!, 0o644);
    fs.writeFileSync(files[2]!, fs.readFileSync(files[2]!, 'utf8').replace('"round":3', '"round":3 '));
    // Round 1 gone.
    fs.rmSync(files[0]!);
    const problems = verifyChains(data, verifyStorage(data).landed).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: relative(files[2]!), what: expect.stringMatching(/^its bytes do not match its commit digest/) },
        { path: relative(files[1]!), what: 'it is round 2, expected 1 (a round is missing before it)' },
        { path: relative(files[1]!), what: expect.stringMatching(/^it names [0-9a-f]{64} as its predecessor, expected none$/) },
        { path: relative(files[1]!), what: expect.stringMatching(/^it reads from landed sequence \d+, expected 1 \(evidence would be skipped or read twice\)$/) },
      ]),
    );
  });

  it('writes the state outside every digest, and takes the head from the rounds on disk', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const session = FIXTURE_SESSIONS.compaction;
    parseSession(data, session);
    const state = path.join(conversationFolder(data, session), 'conversation.state');
    expect(fs.readFileSync(state, 'utf8')).toMatch(/^schema 1\nhead 1\nhead_digest [0-9a-f]{64}\nthrough_seq 1\nupdated_at /);
    // As if a crash came between writing a round and saving the state.
    fs.rmSync(state);
    const index = loadSessionIndex(data, session);
    const again = appendRound(data, { conversation: session, session, structure: assemble(index, { conversation: session, throughSeq: index.throughSeq }), throughSeq: index.throughSeq, landed: index.files, parser: PARSER_VERSION, policy: 'idle_gap_ms=600000' });
    expect(again.round).toBeUndefined();
    expect(readChain(data, session).rounds.length).toBe(1);
  });
});
