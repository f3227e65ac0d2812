// Every id and branch name given on the command line becomes part of a path
// in the data folder: each is checked as an id before any path is built, and
// anything else is a usage error (exit 2) naming the operand or option and
// its value. The places restore and the other writers write to are checked
// as an export's are.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { isBranchName } from '../../src/branches/explicit.ts';
import { copyOfFixtures, temporaryFolder } from '../helpers.ts';
import { sessionizer } from './launcher.ts';

/** Every file and folder under `folder`, relative to it. */
function everythingUnder(folder: string): string[] {
  return (fs.readdirSync(folder, { recursive: true }) as string[]).sort();
}

describe('ids on the command line', () => {
  it('are refused before any path is built when they are not ids, naming the operand or option and its value (exit 2)', () => {
    const parent = temporaryFolder();
    const data = path.join(parent, 'data');
    const out = path.join(parent, 'out');
    fs.mkdirSync(data);
    fs.mkdirSync(path.join(parent, 'victim'));
    const id = '185ec7f2-62f0-481d-ac41-9661f74a6094';
    const ids = "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128";
    const names = "letters, digits, '.', '_' or '-', starting with a letter or digit, at most 64";
    const forkNames = `${names}, and not 'active' or 'from-…', which natural branches use`;
    const refused: [string[], string][] = [
      [['label', '../victim', '--branch', 'active'], `sessionizer label: ID "../victim" is not a conversation id: ${ids}`],
      [['restore', '..', '--branch', 'active', '--out', out], `sessionizer restore: ID ".." is not a conversation id: ${ids}`],
      [['conversation', '../victim'], `sessionizer conversation: ID "../victim" is not a conversation id: ${ids}`],
      [['branches', '/etc'], `sessionizer branches: ID "/etc" is not a conversation id: ${ids}`],
      [['fork', '.', '--at', 'root'], `sessionizer fork: ID "." is not a conversation id: ${ids}`],
      [['parse', '../victim'], `sessionizer parse: SESSION "../victim" is not a session id: ${ids}`],
      [['parse', '_conversations'], `sessionizer parse: SESSION "_conversations" is not a session id: ${ids}`],
      [['export', '--conversation', id, '--conversation', '../victim', '--out', out], `sessionizer export: --conversation "../victim" is not a conversation id: ${ids}`],
      [['label', id, '--branch', '../../../victim'], `sessionizer label: --branch "../../../victim" is not a branch name: ${names}`],
      [['restore', id, '--branch', 'a/b', '--out', out], `sessionizer restore: --branch "a/b" is not a branch name: ${names}`],
      [['fork', id, '--at', 'root', '--name', '../victim'], `sessionizer fork: --name "../victim" is not a name fork may give: ${forkNames}`],
      [['fork', id, '--at', 'root', '--name', 'from-mine'], `sessionizer fork: --name "from-mine" is not a name fork may give: ${forkNames}`],
      // A control character is named escaped, as JSON writes it.
      [['label', 'a\u001b[2Jb', '--branch', 'active'], `sessionizer label: ID "a\\u001b[2Jb" is not a conversation id: ${ids}`],
    ];
    for (const [args, said] of refused) {
      const result = sessionizer([...args, '--data', data]);
      expect([args.join(' '), result.code]).toEqual([args.join(' '), 2]);
      expect(result.error.split('\n')[0]).toBe(said);
      expect(result.out).toBe('');
    }
    // Nothing was written, inside the data folder or beside it.
    expect(everythingUnder(parent)).toEqual(['data', 'victim']);
  });

  it('that name nothing the data folder holds are rejected (exit 1) and leave no folder behind', () => {
    const data = temporaryFolder();
    for (const args of [['label', 'abcd', '--branch', 'active'], ['restore', 'abcd', '--branch', 'active', '--out', path.join(temporaryFolder(), 'out')], ['branches', 'abcd'], ['parse', 'abcd']]) {
      const result = sessionizer([...args, '--data', data]);
      expect([args[0], result.code]).toEqual([args[0], 1]);
      expect(result.error).toMatch(/^error: (conversation|session) abcd/);
    }
    expect(everythingUnder(data)).toEqual([]);
  });

  it('name natural branches of plain names, even when the transcript’s record ids are paths, so restore writes inside --out', { timeout: 60_000 }, () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const session = FIXTURE_SESSIONS.rewind;
    const transcript = path.join(root, '-home-user-fixtures-rewind', `${session}.jsonl`);
    // Every record id, and every pointer to one, made to look like a path.
    fs.writeFileSync(transcript, fs.readFileSync(transcript, 'utf8').replace(/"(uuid|parentUuid|leafUuid|logicalParentUuid|sourceToolAssistantUUID)":"/g, '"$1":"../../'));
    expect(sessionizer(['collect', '--once', '--source', root, '--data', data, '--include', session]).code).toBe(0);
    expect(sessionizer(['parse', session, '--data', data]).code).toBe(0);
    const listed = sessionizer(['branches', session, '--data', data, '--json']);
    const names = (JSON.parse(listed.out) as { branches: { name: string }[] }).branches.map((branch) => branch.name);
    expect(names).toHaveLength(2);
    for (const name of names) expect([name, isBranchName(name)]).toEqual([name, true]);
    const out = path.join(temporaryFolder(), 'restored');
    const restored = sessionizer(['restore', session, '--branch', names.find((name) => name !== 'active')!, '--out', out, '--data', data]);
    expect(restored.code).toBe(0);
    const [project] = fs.readdirSync(out);
    expect(project).toMatch(/^-restored-[0-9a-f]{8}-from-[A-Za-z0-9]{8}-[A-Za-z0-9]{8}$/);
    expect(fs.readdirSync(path.join(out, project!))).toHaveLength(1);
  });
});

describe('the places a command writes to', () => {
  it('restore refuses an --out that is or lies inside the data folder, or is a file (exit 2), and writes nothing', () => {
    const data = temporaryFolder();
    fs.mkdirSync(path.join(data, '_conversations'));
    const file = path.join(temporaryFolder(), 'a-file');
    fs.writeFileSync(file, 'mine\n');
    const id = FIXTURE_SESSIONS.rewind;
    for (const [out, why] of [
      [data, `it is the data folder (${fs.realpathSync(data)})`],
      [path.join(data, '_conversations'), `it is inside the data folder (${fs.realpathSync(data)})`],
      [file, 'it is not a folder'],
    ] as const) {
      const result = sessionizer(['restore', id, '--branch', 'active', '--out', out, '--data', data]);
      expect(result.code).toBe(2);
      expect(result.error.split('\n')[0]).toMatch(new RegExp(`^sessionizer restore: --out ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ${why.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    }
    expect(everythingUnder(data)).toEqual(['_conversations']);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('parse, fork, label and restore refuse a --data that is not a storage zone (exit 2), as collect and export do', () => {
    const home = temporaryFolder();
    fs.mkdirSync(path.join(home, 'Documents'));
    const id = FIXTURE_SESSIONS.rewind;
    for (const args of [['parse'], ['fork', id, '--at', 'root'], ['label', id, '--branch', 'active'], ['restore', id, '--branch', 'active', '--out', path.join(temporaryFolder(), 'out')]]) {
      const result = sessionizer([...args, '--data', home]);
      expect([args[0], result.code]).toEqual([args[0], 2]);
      expect(result.error).toBe(`sessionizer ${args[0]}: --data ${home}: it is not empty and not a Sessionizer storage zone (Documents is nothing the storage layout holds); give the data folder you collected into, or a new folder\n`);
    }
    expect(everythingUnder(home)).toEqual(['Documents']);
  });
});
