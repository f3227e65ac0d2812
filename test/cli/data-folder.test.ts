// What every command takes as --data (docs/formats.md, "The data folder"): a
// folder the tool made as a data folder, an empty one, or one made before the
// marker; never an export or a folder inside one, a file, or a folder of
// anyone's. A refusal is exit 2 with one line, and touches nothing.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyOfFixtures, expectSameFiles, filesOf, temporaryFolder } from '../helpers.ts';
import { sessionizer } from './launcher.ts';

const SESSION = '92aebe89-ad60-445e-a94d-e68080da90f0';

/** Every command that takes --data, with the arguments it needs besides; verify reads a data folder as PATH and writes nothing. */
function commandsTaking(work: string, source: string): string[][] {
  return [
    ['collect', '--once', '--source', source],
    ['parse'],
    ['conversation', SESSION],
    ['branches', SESSION],
    ['fork', SESSION, '--at', 'root', '--name', 'refused'],
    ['restore', SESSION, '--branch', 'main', '--out', path.join(work, 'restored')],
    ['label', SESSION, '--branch', 'main', '--label', 'refused'],
    ['export', '--source', source, '--out', path.join(work, 'another-export')],
  ];
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('--data is a data folder, never a part of an export', () => {
  let work: string;
  let source: string;
  let data: string;
  let out: string;
  beforeAll(() => {
    work = temporaryFolder({ forFile: true });
    source = copyOfFixtures({ forFile: true });
    for (const name of fs.readdirSync(source)) if (name !== '-home-user-fixtures-rewind') fs.rmSync(path.join(source, name), { recursive: true });
    data = path.join(work, 'data');
    out = path.join(work, 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
  }, 180_000);

  it('refuses, for every command, with exit 2 and one line, an export, a folder inside one, a file, and writes nothing', { timeout: 180_000 }, () => {
    const exportBefore = filesOf(out);
    const dataBefore = filesOf(data);
    const file = path.join(work, 'notes.txt');
    fs.writeFileSync(file, 'my notes\n');
    const refused: [string, RegExp][] = [
      [path.join(out, 'bundle'), new RegExp(`: it is inside the export folder ${escaped(out)} \\(which holds \\.sessionizer-export\\); `)],
      [out, /: it is an export folder \(it holds \.sessionizer-export\); /],
      [path.join(out, 'bundle', 'new-data'), new RegExp(`: it is inside the export folder ${escaped(out)} `)],
      [file, /: it is a file; /],
    ];
    for (const args of commandsTaking(work, source)) {
      for (const [given, why] of refused) {
        const run = sessionizer([...args, '--data', given]);
        expect(run.code, `${args[0]} --data ${given}: ${run.error}`).toBe(2);
        expect(run.error, `${args[0]} --data ${given}`).toMatch(new RegExp(`^sessionizer ${args[0]}: --data ${escaped(given)}${why.source}[^\n]*\n$`));
        expect(run.out).toBe('');
      }
    }
    expectSameFiles(filesOf(out), exportBefore);
    expectSameFiles(filesOf(data), dataBefore);
    expect(fs.existsSync(path.join(out, 'bundle', 'new-data'))).toBe(false);
    expect(fs.existsSync(path.join(work, 'restored'))).toBe(false);
    expect(fs.existsSync(path.join(work, 'another-export'))).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('my notes\n');
    expect(sessionizer(['verify', out]).code).toBe(0);
  });

  it('refuses a copy of an export bundle moved out of its export, and a folder of anyone else, for collect and parse', { timeout: 60_000 }, () => {
    const copy = path.join(work, 'bundle-copy');
    fs.cpSync(path.join(out, 'bundle'), copy, { recursive: true });
    const home = path.join(work, 'home');
    fs.mkdirSync(path.join(home, 'Documents'), { recursive: true });
    for (const args of [['collect', '--once', '--source', source], ['parse']]) {
      const copied = sessionizer([...args, '--data', copy]);
      expect([copied.code, copied.error]).toEqual([2, expect.stringMatching(new RegExp(`^sessionizer ${args[0]}: --data ${escaped(copy)}: it has the layout of a data folder but no session state in any session folder, as a copy of an export's bundle has; [^\n]*\n$`))]);
      const foreign = sessionizer([...args, '--data', home]);
      expect([foreign.code, foreign.error]).toEqual([2, expect.stringMatching(new RegExp(`^sessionizer ${args[0]}: --data ${escaped(home)}: it is not empty and not a Sessionizer storage zone \\(Documents is nothing the storage layout holds\\); [^\n]*\n$`))]);
    }
    expectSameFiles(filesOf(copy), filesOf(path.join(out, 'bundle')));
    expect(fs.readdirSync(home)).toEqual(['Documents']);
  });
});

describe('the data folder marker', () => {
  it('is written by the command that makes the folder, added by one that writes into a folder made before it, and never by a reader', { timeout: 120_000 }, () => {
    const work = temporaryFolder();
    const source = copyOfFixtures();
    for (const name of fs.readdirSync(source)) if (name !== '-home-user-fixtures-rewind') fs.rmSync(path.join(source, name), { recursive: true });
    const data = path.join(work, 'data');
    const marker = path.join(data, '.sessionizer-data');
    expect(sessionizer(['collect', '--once', '--source', source, '--data', data]).code).toBe(0);
    expect(fs.readFileSync(marker, 'utf8')).toMatch(/^sessionizer-data\/1\n/);
    expect(sessionizer(['parse', '--data', data]).code).toBe(0);

    // A data folder made before the marker: taken by its layout; a reader leaves it as it is, a writer marks it.
    fs.rmSync(marker);
    expect(sessionizer(['conversation', SESSION, '--data', data]).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    expect(sessionizer(['parse', '--data', data]).code).toBe(0);
    expect(fs.readFileSync(marker, 'utf8')).toMatch(/^sessionizer-data\/1\n/);
    expect(sessionizer(['verify', data]).code).toBe(0);

    // A marker of someone else's text is no marker.
    fs.writeFileSync(marker, 'mine\n');
    const foreign = sessionizer(['parse', '--data', data]);
    expect([foreign.code, foreign.error]).toEqual([2, `sessionizer parse: --data ${data}: its .sessionizer-data is not one this tool writes; give the data folder you collected into, or a new folder\n`]);
    expect(fs.readFileSync(marker, 'utf8')).toBe('mine\n');

    // An empty folder is taken; only a command that lands into it marks it.
    const empty = path.join(work, 'empty');
    fs.mkdirSync(empty);
    const reading = sessionizer(['conversation', SESSION, '--data', empty]);
    expect(reading.code).toBe(1);
    expect(fs.readdirSync(empty)).toEqual([]);
    expect(sessionizer(['collect', '--once', '--source', source, '--data', empty]).code).toBe(0);
    expect(fs.readFileSync(path.join(empty, '.sessionizer-data'), 'utf8')).toMatch(/^sessionizer-data\/1\n/);
  });
});
