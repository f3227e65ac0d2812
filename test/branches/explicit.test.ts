import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assemble } from '../../src/parse/structure.ts';
import { checkBoundary } from '../../src/branches/boundary.ts';
import { treeOf } from '../../src/branches/tree.ts';
import { branchPath, explicitBranches, fork, ForkRejected, mainStreamOf } from '../../src/branches/explicit.ts';
import { restoreBranch } from '../../src/branches/restore.ts';
import type { IndexEntry } from '../../src/index/session-index.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { conversationFolder } from '../../src/session-flow/chain.ts';
import { verifyChains } from '../../src/verify/chains.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

function parsed(sessions: string[], options: { forFile?: boolean } = {}): string {
  const data = temporaryFolder(options);
  collectOnce(copyOfFixtures(options), data);
  for (const session of sessions) parseSession(data, session);
  return data;
}

function records(data: string, session: string): IndexEntry[] {
  return mainStreamOf(data, session).records;
}

function rejection(action: () => unknown): ForkRejected {
  try {
    action();
  } catch (error) {
    if (error instanceof ForkRejected) return error;
    throw error;
  }
  throw new Error('the fork was not rejected');
}

describe('fork: a valid boundary', () => {
  it('records parent, boundary and its kind, the head round, provenance, immutably and named by digest', () => {
    const session = FIXTURE_SESSIONS.rewind;
    const data = parsed([session]);
    const answer = records(data, session).find((record) => record.from === 'agent')!;
    const { record, file } = fork(data, { conversation: session, at: answer.id!, name: 'second-try', by: 'tester', reason: 'try a shorter haiku', now: new Date('2026-12-02T10:00:00Z') });
    expect(record).toMatchObject({
      schema: 'branch/1',
      name: 'second-try',
      conversation: session,
      parent_branch: expect.any(String),
      boundary: { event: answer.id, kind: 'turn', ref: { seq: answer.seq, row: answer.row } },
      cut_from: { round: 1, digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
      provenance: { tool: 'sessionizer/0.1.0', time: '2026-12-02T10:00:00.000Z', actor: 'tester', reason: 'try a shorter haiku' },
    });
    expect(path.basename(file)).toMatch(/^second-try-[0-9a-f]{12}\.json$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o444);
    expect(explicitBranches(data, session)).toEqual([{ file, record, intact: true }]);
    expect(() => fork(data, { conversation: session, at: answer.id!, name: 'second-try' })).toThrow(/already has a branch named second-try/);
  });

  it('knows the boundary kinds: root, the end of a run, a tip, and a closed tool use only when asked', () => {
    const data = parsed([FIXTURE_SESSIONS.parallelLinear, FIXTURE_SESSIONS.rewind]);
    const rewind = records(data, FIXTURE_SESSIONS.rewind);
    const tree = treeOf(rewind);
    expect(checkBoundary(tree, rewind, 'root')).toMatchObject({ valid: true, kind: 'root' });
    expect(checkBoundary(tree, rewind, rewind.filter((record) => record.from === 'agent').at(-1)!.id!)).toMatchObject({ valid: true, kind: 'tip' });
    const linear = records(data, FIXTURE_SESSIONS.parallelLinear);
    const linearTree = treeOf(linear);
    const lastResult = linear.filter((record) => record.results.length > 0).at(-1)!;
    expect(checkBoundary(linearTree, linear, lastResult.id!)).toMatchObject({ valid: false, rule: 'no_pending_tool', why: expect.stringMatching(/pass --allow-tool-closed/) });
    expect(checkBoundary(linearTree, linear, lastResult.id!, { allowToolClosed: true })).toMatchObject({ valid: true, kind: 'tool_closed' });
  });
});

describe('fork: every invalid boundary class is rejected with its rule and the nearest valid boundary', () => {
  let data: string;
  beforeAll(() => {
    data = parsed([FIXTURE_SESSIONS.parallelForked, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction, FIXTURE_SESSIONS.structuralChildren], { forFile: true });
  });

  it('a record that does not exist', () => {
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.parallelForked, at: 'no-such-record' }));
    expect([error.rule, error.message]).toEqual(['exists', 'cannot fork at no-such-record: exists: no record no-such-record in this conversation.']);
  });

  it('a record whose ancestry is broken, or runs in a cycle', () => {
    const entry = (id: string, parent?: string): IndexEntry => ({ seq: 1, row: 1, place: 'streams/main', kind: 'transcript', id, parent, from: 'agent', flags: ['finished'], parts: ['text'], calls: [], results: [] });
    const dangling = [entry('a', 'missing')];
    expect(checkBoundary(treeOf(dangling), dangling, 'a')).toEqual({ valid: false, rule: 'ancestry', why: 'a names a parent missing that is not in the evidence' });
    const cycle = [entry('a', 'b'), entry('b', 'a')];
    expect(checkBoundary(treeOf(cycle), cycle, 'a')).toMatchObject({ valid: false, rule: 'ancestry', why: expect.stringMatching(/cycle/) });
  });

  it('a record of a child stream', () => {
    const child = mainStreamOf(data, FIXTURE_SESSIONS.nestedAgents).canonical.find((record) => record.place === `streams/${FIXTURE_AGENTS.nestedOuter}` && record.id !== undefined)!;
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.nestedAgents, at: child.id! }));
    expect(error.rule).toBe('main_stream');
    expect(error.message).toContain('a child stream; fork the parent conversation at the call that started it instead');
  });

  it('a fragment that is not the last of its provider call', () => {
    const first = records(data, FIXTURE_SESSIONS.parallelForked).find((record) => record.call === 'msg_parallel_forked_01')!;
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.parallelForked, at: first.id! }));
    expect(error.rule).toBe('complete_call');
    expect(error.message).toMatch(/The nearest valid boundary is [0-9a-f-]{36} \(turn\)\.$|The nearest valid boundary is root \(root\)\.$/);
  });

  it('a point where a tool use is still waiting for its result', () => {
    const last = records(data, FIXTURE_SESSIONS.parallelForked).filter((record) => record.call === 'msg_parallel_forked_01').at(-1)!;
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.parallelForked, at: last.id! }));
    expect(error.rule).toBe('no_pending_tool');
    expect(error.message).toContain('toolu_fork01, toolu_fork02 have no result');
  });

  it('a context reset, which is inside a compaction', () => {
    const reset = records(data, FIXTURE_SESSIONS.compaction).find((record) => record.flags.includes('context_reset'))!;
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.compaction, at: reset.id! }));
    expect(error.rule).toBe('outside_compaction');
    expect(error.message).toContain('is a context reset; fork at its summary or before it');
  });

  it('bookkeeping that is not part of the conversation', () => {
    const progress = records(data, FIXTURE_SESSIONS.structuralChildren).find((record) => record.flags.includes('structural') && record.id !== undefined)!;
    const error = rejection(() => fork(data, { conversation: FIXTURE_SESSIONS.structuralChildren, at: progress.id! }));
    expect(error.rule).toBe('conversational');
    expect(error.message).toMatch(/The nearest valid boundary is [0-9a-f-]{36} \(turn\)\.$/);
  });
});

describe('fork: isolation and the side-effect caveat', () => {
  it('changes nothing on disk but the new branch record: rounds and other branches stay byte for byte', () => {
    const session = FIXTURE_SESSIONS.rewind;
    const data = parsed([session]);
    const agents = records(data, session).filter((record) => record.from === 'agent');
    fork(data, { conversation: session, at: agents[0]!.id!, name: 'first' });
    const snapshot = (): Map<string, string> => {
      const files = new Map<string, string>();
      const walk = (folder: string): void => {
        for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
          const full = path.join(folder, entry.name);
          if (entry.isDirectory()) walk(full);
          else files.set(path.relative(data, full), fs.readFileSync(full).toString('base64'));
        }
      };
      walk(data);
      return files;
    };
    const before = snapshot();
    const { file } = fork(data, { conversation: session, at: agents.at(-1)!.id!, name: 'second' });
    const after = snapshot();
    after.delete(path.relative(data, file));
    expect(after).toEqual(before);
    expect(verifyChains(data, verifyStorage(data).landed).problems).toEqual([]);
    // A tampered branch record is found.
    fs.chmodSync(file, 0o644);
    fs.appendFileSync(file, ' ');
    expect(verifyChains(data, verifyStorage(data).landed).problems).toEqual([{ path: path.relative(data, file), what: expect.stringMatching(/^its bytes do not match the digest in its name/) }]);
    expect(fs.existsSync(conversationFolder(data, session))).toBe(true);
  });

  it('lists exactly the effectful tool uses after the boundary on the parent path', () => {
    const data = parsed([FIXTURE_SESSIONS.parallelForked, FIXTURE_SESSIONS.parallelLinear, FIXTURE_SESSIONS.nestedAgents]);
    const shell = fork(data, { conversation: FIXTURE_SESSIONS.parallelForked, at: 'root', name: 'before-tests' }).record;
    expect(shell.side_effects.map((effect) => [effect.name, effect.tool_use, effect.category, effect.effect])).toEqual([
      ['Bash', 'toolu_fork01', 'shell', 'irreversible: not rolled back'],
      ['Bash', 'toolu_fork02', 'shell', 'irreversible: not rolled back'],
    ]);
    // Reading files has no effect to undo.
    expect(fork(data, { conversation: FIXTURE_SESSIONS.parallelLinear, at: 'root', name: 'before-reads' }).record.side_effects).toEqual([]);
    // A child agent's work is not undone either; it is listed as such.
    expect(fork(data, { conversation: FIXTURE_SESSIONS.nestedAgents, at: 'root', name: 'before-survey' }).record.side_effects.map((effect) => effect.category)).toEqual(['child_agent']);
  });
});

describe('restore', () => {
  it('writes a branch as a transcript with a new session id, which collect reads back into the same structure', () => {
    const session = FIXTURE_SESSIONS.rewind;
    const data = parsed([session]);
    const out = path.join(temporaryFolder(), 'projects');
    const restored = restoreBranch(data, session, 'active', out);
    expect(restored.session).not.toBe(session);
    const lines = fs.readFileSync(restored.file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { sessionId: string; parentUuid: string | null; uuid: string });
    expect(lines.every((line) => line.sessionId === restored.session)).toBe(true);
    lines.forEach((line, index) => expect(line.parentUuid).toBe(index === 0 ? null : lines[index - 1]!.uuid));
    // Collected again, the projection is a conversation of its own with the branch's shape.
    const again = temporaryFolder();
    collectOnce(out, again);
    const index = loadSessionIndex(again, restored.session);
    const structure = assemble(index, { conversation: restored.session, throughSeq: index.throughSeq });
    const activeTurns = branchPath(data, session, 'active').filter((record) => record.flags.includes('external_input')).length;
    expect(structure.nodes.filter((node) => node.kind === 'talk').length).toBe(activeTurns);
    expect(structure.nodes.filter((node) => node.kind === 'branch' && !node.attrs?.active)).toEqual([]);
    expect(() => restoreBranch(data, session, 'active', out)).toThrow(/already exists; restore never overwrites/);
    expect(() => restoreBranch(data, session, 'no-such-branch', out)).toThrow(ForkRejected);
  });

  it('projects an explicit branch to its boundary’s ancestry only, and fails closed on a broken path', () => {
    const session = FIXTURE_SESSIONS.parallelForked;
    const data = parsed([session]);
    const boundary = records(data, session).find((record) => record.flags.includes('external_input'))!;
    const answer = records(data, session).filter((record) => record.from === 'agent').at(-1)!;
    fork(data, { conversation: session, at: answer.id!, name: 'after-answer' });
    const projected = branchPath(data, session, 'after-answer');
    expect(projected[0]).toEqual(boundary);
    expect(projected.at(-1)).toEqual(answer);
    const out = path.join(temporaryFolder(), 'projects');
    const restored = restoreBranch(data, session, 'after-answer', out);
    // The parallel results hang beside the path, and come along.
    expect(restored.records).toBe(records(data, session).filter((record) => record.id !== undefined).length);
  });
});
