import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mainStreamOf } from '../../src/branches/explicit.ts';
import { currentLabels, labelBranch } from '../../src/branches/labels.ts';
import { analyseBranches } from '../../src/branches/natural.ts';
import { spliceForExport } from '../../src/branches/splice.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const sessionizer = (args: string[]) => spawnSync(process.execPath, [launcher, ...args], { encoding: 'utf8' });

describe('labels', () => {
  it('add a new record per change, the latest wins whole, and a given summary replaces the stub', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const session = FIXTURE_SESSIONS.rewind;
    parseSession(data, session);
    const [offPath] = analyseBranches(mainStreamOf(data, session).records).branches.filter((branch) => !branch.active);
    const first = labelBranch(data, session, offPath!.name, { labels: ['sad', 'draft'], by: 'tester' });
    const second = labelBranch(data, session, offPath!.name, { labels: ['abandoned'], summary: 'A sadder haiku, dropped for snow.', by: 'tester' });
    expect(fs.readFileSync(first.file, 'utf8')).toContain('"draft"');
    expect(fs.statSync(second.file).mode & 0o777).toBe(0o444);
    expect(currentLabels(data, session).get(offPath!.name)).toMatchObject({ labels: ['abandoned'], summary: 'A sadder haiku, dropped for snow.' });
    const listed = JSON.parse(sessionizer(['branches', session, '--data', data, '--json']).stdout) as { branches: { name: string; labels: string[]; summary: string }[] };
    expect(listed.branches.find((branch) => branch.name === offPath!.name)).toMatchObject({ labels: ['abandoned'], summary: 'A sadder haiku, dropped for snow.' });
    expect(listed.branches.find((branch) => branch.name === 'active')).toMatchObject({ labels: [], summary: '[1 turn, unsummarized]' });
    const missing = sessionizer(['label', session, '--branch', 'no-such-branch', '--label', 'x', '--data', data]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('has no branch named no-such-branch');
  });
});

describe('the export splice', () => {
  it('keeps the active path whole and puts one stub per branch at its fork point', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    for (const session of [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.rewindAtFirstPrompt]) {
      const analysis = analyseBranches(mainStreamOf(data, session).records);
      const spliced = spliceForExport(analysis, new Map([[analysis.branches.find((branch) => !branch.active)!.name, 'given']]));
      expect(spliced.filter((item) => item.type === 'record').map((item) => (item.type === 'record' ? item.record : undefined))).toEqual(analysis.activePath);
      const stubs = spliced.filter((item) => item.type === 'branch');
      expect(stubs).toEqual([expect.objectContaining({ type: 'branch', summary: 'given', turns: 1 })]);
      const branch = analysis.branches.find((entry) => !entry.active)!;
      const at = spliced.findIndex((item) => item.type === 'branch');
      // Right after its fork point, or first of all for a rewind to the first prompt.
      if (branch.forkPoint) expect(spliced[at - 1]).toEqual({ type: 'record', record: branch.forkPoint });
      else expect(at).toBe(0);
    }
  });
});
