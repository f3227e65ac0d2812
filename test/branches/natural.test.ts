import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { removeDuplicates } from '../../src/assembly/duplicates.ts';
import { partitionStreams } from '../../src/assembly/streams.ts';
import { analyseBranches, type BranchAnalysis } from '../../src/branches/natural.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { readChain } from '../../src/session-flow/chain.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

let data: string;
beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

function analysis(session: string, where = data): BranchAnalysis {
  const main = partitionStreams(removeDuplicates(loadSessionIndex(where, session).entries).canonical).streams.get('main')!;
  return analyseBranches(main.records);
}

const kinds = (result: BranchAnalysis) => result.forks.map((fork) => fork.kind);
const offPath = (result: BranchAnalysis) => result.branches.filter((branch) => !branch.active);

describe('natural branches: what is not a branch', () => {
  it('parallel tool calls in both layouts, and a late tool result', () => {
    expect(kinds(analysis(FIXTURE_SESSIONS.parallelLinear))).toEqual([]);
    expect(kinds(analysis(FIXTURE_SESSIONS.parallelForked))).toEqual(['parallel_tools']);
    expect(kinds(analysis(FIXTURE_SESSIONS.lateResult))).toEqual(['parallel_tools']);
    for (const session of [FIXTURE_SESSIONS.parallelLinear, FIXTURE_SESSIONS.parallelForked, FIXTURE_SESSIONS.lateResult]) expect(offPath(analysis(session))).toEqual([]);
  });

  it('a retry after a provider error, structural side records, and a compaction’s re-written block', () => {
    expect(kinds(analysis(FIXTURE_SESSIONS.retry))).toEqual(['retry']);
    expect(kinds(analysis(FIXTURE_SESSIONS.structuralChildren))).toEqual(['structural']);
    // Duplicates are removed first, so the re-written block makes no fork at all, and the reset is bridged.
    expect(kinds(analysis(FIXTURE_SESSIONS.duplicates))).toEqual([]);
    expect(kinds(analysis(FIXTURE_SESSIONS.compaction))).toEqual([]);
    for (const session of [FIXTURE_SESSIONS.retry, FIXTURE_SESSIONS.structuralChildren, FIXTURE_SESSIONS.duplicates, FIXTURE_SESSIONS.compaction]) expect(offPath(analysis(session))).toEqual([]);
  });
});

describe('natural branches: rewinds', () => {
  it('mid-conversation: one branch left behind, the active path chosen by the runtime’s leaf pointer', () => {
    const result = analysis(FIXTURE_SESSIONS.rewind);
    expect(kinds(result)).toEqual(['branch']);
    expect(result.activeBy).toBe('leaf_pointer');
    const [branch] = offPath(result);
    expect(branch).toMatchObject({ turns: 1, summary: '[1 turn, unsummarized]' });
    expect(branch!.forkPoint!.from).toBe('agent');
    expect(branch!.name).toBe(`from-${branch!.forkPoint!.id!.replace(/-/g, '').slice(0, 8)}-${branch!.first.id!.replace(/-/g, '').slice(0, 8)}`);
    // The abandoned path is the one the person went back from.
    expect(result.activePath.map((record) => record.id)).not.toContain(branch!.first.id);
    expect(result.activePath.at(-1)!.id).toBe(result.branches.find((entry) => entry.active)!.tip.id);
  });

  it('at the first prompt: two roots, one of them left behind', () => {
    const result = analysis(FIXTURE_SESSIONS.rewindAtFirstPrompt);
    expect(kinds(result)).toEqual(['branch']);
    expect(offPath(result)).toEqual([expect.objectContaining({ forkPoint: undefined, turns: 1 })]);
    expect(offPath(result)[0]!.name).toMatch(/^from-root-[0-9a-f]{8}$/);
  });

  it('after a compaction: the fork is below the summary, and the path reaches back across the reset', () => {
    const result = analysis(FIXTURE_SESSIONS.rewindAfterCompaction);
    expect(kinds(result)).toEqual(['branch']);
    const [branch] = offPath(result);
    expect(branch!.forkPoint!.flags).toContain('reset_summary');
    // Root to leaf through the boundary: the first prompt, before the reset, is on the active path.
    expect(result.activePath[0]!.flags).toContain('external_input');
    expect(result.activePath.some((record) => record.flags.includes('context_reset'))).toBe(true);
  });

  it('names a branch the same way whatever else lands later', () => {
    const root = copyOfFixtures();
    const where = temporaryFolder();
    collectOnce(root, where);
    const before = offPath(analysis(FIXTURE_SESSIONS.rewind, where)).map((branch) => branch.name);
    fs.appendFileSync(path.join(root, '-home-user-fixtures-rewind', `${FIXTURE_SESSIONS.rewind}.jsonl`), '{"type":"user","uuid":"later-1","parentUuid":null,"message":{"role":"user","content":"unrelated"}}\n');
    collectOnce(root, where);
    expect(offPath(analysis(FIXTURE_SESSIONS.rewind, where)).map((branch) => branch.name)).toEqual(expect.arrayContaining(before));
  });
});

describe('branches in the round chain', () => {
  it('are published as nodes, and `sessionizer branches` lists them from the fold', () => {
    const where = temporaryFolder();
    collectOnce(copyOfFixtures(), where);
    parseSession(where, FIXTURE_SESSIONS.rewind);
    const folded = readChain(where, FIXTURE_SESSIONS.rewind);
    const published = [...folded.nodes.values()].filter((node) => node.kind === 'branch').map((node) => node.attrs?.name);
    expect(published.sort()).toEqual(analysis(FIXTURE_SESSIONS.rewind, where).branches.map((branch) => branch.name).sort());
    const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
    const listed = spawnSync(process.execPath, [launcher, 'branches', FIXTURE_SESSIONS.rewind, '--data', where, '--json'], { encoding: 'utf8' });
    expect(listed.status).toBe(0);
    const branches = (JSON.parse(listed.stdout) as { branches: { name: string; active: boolean; origin: string; summary: string }[] }).branches;
    expect(branches.map((branch) => [branch.active, branch.origin])).toEqual([
      [true, 'natural'],
      [false, 'natural'],
    ]);
    expect(branches[1]!.summary).toBe('[1 turn, unsummarized]');
  });
});
