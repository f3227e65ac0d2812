// A source the command cannot read is named, never left out in silence
// (docs/commands.md): discovery names each folder and file it could not
// read, collection each source file, and `sources`, `collect` and `export`
// say them and exit 1, the export written all the same from the rest and
// said to be incomplete. Root reads everything, so the command runs as
// another user here; the checkout is then not that user's either, and the
// site step builds in a private folder of its own rather than failing.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_ROOTS } from '../../src/site/generator/kept-renderer.ts';
import { copyOfFixtures, temporaryFolder } from '../helpers.ts';
import { ANOTHER_USER, anotherUserMissing, describeWhere } from '../requirements.ts';
import { LAUNCHER, sessionizer } from './launcher.ts';

const PROJECTS = ['-home-user-fixtures-duplicates', '-home-user-fixtures-rewind', '-home-user-fixtures-retry', '-home-user-fixtures-nested-agents', '-home-user-fixtures-legacy-agents'];

/** The command run as ANOTHER_USER, with its temporary folder and home in `own`. */
function asAnotherUser(args: string[], own: string): { code: number | null; out: string; error: string } {
  const result = spawnSync('/usr/bin/setpriv', [`--reuid=${ANOTHER_USER}`, `--regid=${ANOTHER_USER}`, '--clear-groups', process.execPath, LAUNCHER, ...args], {
    cwd: own,
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: own, HOME: own },
  });
  return { code: result.status, out: result.stdout, error: result.stderr };
}

/** A source of PROJECTS every user may read, but for one project folder, one session folder, one main transcript and one project-level child transcript. */
function sourceWithUnreadableParts(): { source: string; unreadable: string[] } {
  const source = copyOfFixtures();
  for (const name of fs.readdirSync(source)) if (!PROJECTS.includes(name)) fs.rmSync(path.join(source, name), { recursive: true });
  fs.chmodSync(path.dirname(source), 0o755);
  spawnSync('chmod', ['-R', 'a+rX', source]);
  const unreadable = [
    path.join(source, '-home-user-fixtures-legacy-agents', 'agent-3ea04571.jsonl'),
    path.join(source, '-home-user-fixtures-nested-agents', 'ca784f2e-48df-42ba-a11e-0be437cc2b44'),
    path.join(source, '-home-user-fixtures-retry', 'b5bae7e2-88d0-490c-ad6a-e271d21d0d44.jsonl'),
    path.join(source, '-home-user-fixtures-rewind'),
  ];
  for (const where of unreadable) fs.chmodSync(where, 0o000);
  return { source, unreadable };
}

/** A folder of ANOTHER_USER's own, for its data, export, temporary files and home. */
function folderOfAnotherUser(): string {
  const work = temporaryFolder();
  fs.chmodSync(work, 0o755);
  const own = path.join(work, 'own');
  fs.mkdirSync(own);
  fs.chownSync(own, ANOTHER_USER, ANOTHER_USER);
  return own;
}

describeWhere(anotherUserMissing(), 'a source that cannot be read', () => {
  it('is named by sources and collect, which exit 1 and collect the rest', { timeout: 120_000 }, () => {
    const { source, unreadable } = sourceWithUnreadableParts();
    const own = folderOfAnotherUser();
    const discovered = unreadable.filter((where) => !where.endsWith('b5bae7e2-88d0-490c-ad6a-e271d21d0d44.jsonl'));

    const listed = asAnotherUser(['sources', '--source', source, '--json'], own);
    expect(listed.code, listed.error).toBe(1);
    expect((JSON.parse(listed.out) as { unreadable_sources: unknown }).unreadable_sources).toEqual(discovered.map((where) => ({ path: where, error: 'EACCES: permission denied' })));

    const text = asAnotherUser(['collect', '--once', '--source', source, '--data', path.join(own, 'data')], own);
    expect(text.code, text.error).toBe(1);
    for (const where of discovered) expect(text.error).toContain(`error: ${where}: cannot be read (EACCES: permission denied); nothing under it is collected\n`);
    // Not as a project-level child whose records name no session: it was never read.
    expect(text.error).not.toContain('name no session');
    expect(text.error).toMatch(/error: b5bae7e2-88d0-490c-ad6a-e271d21d0d44 -home-user-fixtures-retry\/b5bae7e2-88d0-490c-ad6a-e271d21d0d44\.jsonl: EACCES: permission denied/);

    const json = asAnotherUser(['collect', '--once', '--json', '--source', source, '--data', path.join(own, 'data')], own);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as { unreadable_sources: unknown; warnings: string[] };
    expect(report.unreadable_sources).toEqual(unreadable.map((where) => ({ path: where, error: 'EACCES: permission denied' })));
    expect(report.warnings).toEqual(discovered.map((where) => `${where}: EACCES: permission denied`));

    // A data folder this user cannot write in is refused in one line, as any other --data is.
    const roots = path.dirname(own);
    const refused = asAnotherUser(['collect', '--once', '--source', source, '--data', path.join(roots, 'data')], own);
    expect([refused.code, refused.error]).toEqual([2, `sessionizer collect: --data ${path.join(roots, 'data')}: this user cannot write in ${roots} (EACCES: permission denied); give a data folder this user can write\n`]);
  });

  it('is named by the export, in its summary and its --json; the export is written from the rest, verifies, and exits 1', { timeout: 300_000 }, () => {
    const { source, unreadable } = sourceWithUnreadableParts();
    const own = folderOfAnotherUser();
    const data = path.join(own, 'data');
    const out = path.join(own, 'export');
    // The checkout's cache of site builds is root's: the site step must build somewhere else.
    const buildRootsWritable = fs.statSync(BUILD_ROOTS).uid === ANOTHER_USER || (fs.statSync(BUILD_ROOTS).mode & 0o002) !== 0;

    const exported = asAnotherUser(['export', '--json', '--source', source, '--data', data, '--out', out], own);
    expect(exported.code, exported.error).toBe(1);
    expect(exported.error).not.toMatch(/EACCES: permission denied, mkdtemp|\n {4}at /);
    const result = JSON.parse(exported.out) as { conversations: number; unreadable_sources: unknown; root_digest: string };
    expect(result.unreadable_sources).toEqual(unreadable.map((where) => ({ path: where, error: 'EACCES: permission denied' })));
    // Duplicates, and the main transcripts of nested-agents and legacy-agents; rewind and retry could not be read.
    expect(result.conversations).toBe(3);
    expect(sessionizer(['verify', out]).code).toBe(0);
    if (!buildRootsWritable) expect(fs.readdirSync(own).filter((name) => name.startsWith('sessionizer-site-'))).toHaveLength(1);

    const again = asAnotherUser(['export', '--source', source, '--data', data, '--out', out], own);
    expect(again.code, again.error).toBe(1);
    const lines = again.out.split('\n');
    const said = lines.findIndex((line) => line.startsWith('The export is incomplete: '));
    expect(lines[said - 1]).toMatch(/^export written to /);
    expect(lines.slice(said, said + 5)).toEqual([
      'The export is incomplete: 4 sources could not be read, and what they hold is not in it:',
      ...unreadable.map((where) => `  not read: ${where} (EACCES: permission denied)`),
    ]);
    expect(sessionizer(['verify', out]).code).toBe(0);
  });
});

describe('an export of a source it reads whole', () => {
  it('says nothing is missing, and warns of what discovery could not place, as collect does', { timeout: 180_000 }, () => {
    const source = copyOfFixtures();
    for (const name of fs.readdirSync(source)) if (name !== '-home-user-fixtures-duplicates') fs.rmSync(path.join(source, name), { recursive: true });
    fs.writeFileSync(path.join(source, '-home-user-fixtures-duplicates', 'agent-0a1b2c3d.jsonl'), '{"type":"user"}\n');
    const warning = 'warning: -home-user-fixtures-duplicates/agent-0a1b2c3d.jsonl: a project-level child transcript whose records name no session; it was not collected\n';
    const work = temporaryFolder();
    const json = sessionizer(['export', '--json', '--source', source, '--data', path.join(work, 'data'), '--out', path.join(work, 'export')]);
    expect(json.code, json.error).toBe(0);
    expect((JSON.parse(json.out) as { unreadable_sources: unknown }).unreadable_sources).toEqual([]);
    expect(json.error).toContain(warning);
    const text = sessionizer(['export', '--source', source, '--data', path.join(work, 'data'), '--out', path.join(work, 'export')]);
    expect(text.code).toBe(0);
    expect(text.out).not.toContain('incomplete');
    expect(text.error).toContain(warning);
  });
});
