// A `.sd` written by an earlier generation of the converter (its rows
// without what the converter has learnt since) is derived again before any
// parse or export reads it, so that an export made from such a data folder,
// and the data folder after it, pass `verify --deep`.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { DIALECT } from '../../src/adapters/claude-code/convert.ts';
import { BUNDLE } from '../../src/bundle/manifest.ts';
import { sessionDataBeside } from '../../src/landing/layout.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { roundFiles } from '../../src/session-flow/chain.ts';
import { sessionizer } from '../cli/launcher.ts';
import { copyOfFixtures, temporaryFolder } from '../helpers.ts';

const session = FIXTURE_SESSIONS.structuralChildren;

/**
 * Rewrites a `.sd` as a converter of generation claude-code/1 could have:
 * no row with a notice, a title or a git branch, the fields the converter
 * learnt since.
 */
function writeAsOlderConverter(file: string): void {
  const [header, ...rows] = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const older = rows.map(({ notice: _notice, title: _title, label: _label, git_branch: _branch, ...row }) => row);
  fs.chmodSync(file, 0o644);
  fs.writeFileSync(file, [{ ...header, dialect: 'claude-code/1' }, ...older].map((value) => `${JSON.stringify(value)}\n`).join(''));
}

const withNotice = (file: string): boolean => fs.readFileSync(file, 'utf8').split('\n').some((line) => line.includes('"notice":'));
const dialectOf = (file: string): unknown => (JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!) as { dialect: unknown }).dialect;

describe('a .sd written by an older converter', () => {
  it('is noted by verify, derived again by an export, and the export and the data folder then pass verify --deep', () => {
    const root = copyOfFixtures();
    const data = path.join(temporaryFolder(), 'data');
    expect(sessionizer(['collect', '--once', '--source', root, '--data', data]).code).toBe(0);
    const outdated = landedFilesOfSession(data, session).map((file) => sessionDataBeside(file.path)).filter(withNotice);
    expect(outdated.length).toBeGreaterThan(0);
    for (const file of outdated) writeAsOlderConverter(file);
    // Its chain read from those rows, as the build that wrote them parsed: one without a later converter.
    parseSession(data, session, { converters: [] });
    const landedBefore = landedFilesOfSession(data, session).map((file) => fs.readFileSync(file.path));
    const roundsBefore = roundFiles(data, session).length;

    const noted = sessionizer(['verify', data]);
    expect(noted.error).toContain(`note: ${session}/: ${outdated.length} of its .sd were written by an older converter (claude-code/1; this build writes ${DIALECT})`);
    expect(noted.error.match(/written by an older converter/g)).toHaveLength(1);
    expect(noted.code).toBe(0);

    const out = path.join(temporaryFolder(), 'export');
    const exported = sessionizer(['export', '--source', root, '--data', data, '--out', out, '--all']);
    expect(exported.error).not.toMatch(/chain|broken/i);
    expect(exported.code).toBe(0);
    for (const file of outdated) {
      expect(dialectOf(file)).toBe(DIALECT);
      expect(withNotice(file)).toBe(true);
      const inExport = path.join(out, BUNDLE, path.relative(data, file));
      expect(dialectOf(inExport)).toBe(DIALECT);
      expect(withNotice(inExport)).toBe(true);
    }
    // Landed files are evidence: deriving again never touches them.
    expect(landedFilesOfSession(data, session).map((file) => fs.readFileSync(file.path))).toEqual(landedBefore);
    // The rows changed, so the chain took them as a new round, not as a broken chain.
    expect(roundFiles(data, session).length).toBeGreaterThan(roundsBefore);

    for (const folder of [out, data]) {
      const verified = sessionizer(['verify', folder, '--deep']);
      expect(verified.error).not.toMatch(/older converter/);
      expect(verified.code, verified.error).toBe(0);
    }
  });
});
