import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { verifyAssemblies } from '../../src/verify/chains.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { roundFiles } from '../../src/session-flow/chain.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, landedOf, temporaryFolder } from '../helpers.ts';

function collected(): string {
  const data = temporaryFolder();
  collectOnce(copyOfFixtures(), data);
  return data;
}

// Landed files are read-only; a test that tampers with one makes it writable first.
function tamper(file: string, change: (content: Buffer) => Buffer): void {
  fs.chmodSync(file, 0o644);
  fs.writeFileSync(file, change(fs.readFileSync(file)));
  fs.chmodSync(file, 0o444);
}

const relative = (data: string, file: string): string => path.relative(data, file).split(path.sep).join('/');

describe('verify a storage root', () => {
  it('passes an intact storage zone, also when every .sd is derived again', () => {
    const data = collected();
    const report = verifyStorage(data, { deep: true, converters: CONVERTERS });
    expect(report.problems).toEqual([]);
    expect(report.sessions).toBe(Object.keys(FIXTURE_SESSIONS).length - 1);
    expect(report.records).toBe(Object.values(FIXTURE_SESSIONS).reduce((sum, session) => sum + landedOf(data, session).reduce((count, file) => count + file.records.length, 0), 0));
  });

  it('reports a changed byte in a record, with the record, its source line and both digests', () => {
    const data = collected();
    const [file] = landedFilesOfSession(data, FIXTURE_SESSIONS.rewind);
    tamper(file!.path, (content) => Buffer.from(content.toString().replace('Rain on the tin roof.', 'Rain on the tin ROOF.')));
    const { problems } = verifyStorage(data);
    expect(problems).toEqual([
      { path: relative(data, file!.path), what: expect.stringMatching(/^record 2 \(source line 2\): its bytes do not match its digest \(expected sha [0-9a-f]{64}, found [0-9a-f]{64}\)$/) },
      { path: relative(data, file!.path.replace(/\.jsonl$/, '.sd')), what: expect.stringMatching(/^it was derived from other bytes than its landed file's/) },
    ]);
  });

  it('reports a missing landed file as a gap in the sequence, and a moved one as a wrong name', () => {
    const data = collected();
    const files = landedFilesOfSession(data, FIXTURE_SESSIONS.nestedAgents);
    fs.rmSync(files[1]!.path);
    fs.rmSync(files[1]!.path.replace(/\.jsonl$/, '.sd'));
    const moved = files[2]!.path.replace(/-(\d+)\.jsonl$/, '-000009.jsonl');
    fs.renameSync(files[2]!.path, moved);
    fs.renameSync(files[2]!.path.replace(/\.jsonl$/, '.sd'), moved.replace(/\.jsonl$/, '.sd'));
    const { problems } = verifyStorage(data);
    expect(problems.map((problem) => problem.what)).toEqual(
      expect.arrayContaining([
        'sequence 2 is missing: no landed file has it (expected 1 to 9 with no gap)',
        'sequence 3 is missing: no landed file has it (expected 1 to 9 with no gap)',
        'the header says sequence 3, the name says 9',
        `next_seq is 6, but sequence 9 is already landed (expected more than 9)`,
      ]),
    );
  });

  it('reports a landed file placed in another session or stream', () => {
    const data = collected();
    const [file] = landedFilesOfSession(data, FIXTURE_SESSIONS.rewind);
    const [other] = landedFilesOfSession(data, FIXTURE_SESSIONS.compaction);
    const intruder = path.join(path.dirname(other!.path), path.basename(file!.path).replace(/-\d+\.jsonl$/, '-000002.jsonl'));
    fs.copyFileSync(file!.path, intruder);
    const { problems } = verifyStorage(data);
    expect(problems).toContainEqual({ path: relative(data, intruder), what: `the header names session ${FIXTURE_SESSIONS.rewind}, but the file is in ${FIXTURE_SESSIONS.compaction}` });
    expect(problems).toContainEqual({ path: relative(data, intruder), what: `its .sd is missing (expected ${path.basename(intruder).replace(/\.jsonl$/, '.sd')}); the next collect derives it` });
  });

  it('reports a .sd with a row too few, a stray file, and a .sd that derives differently', () => {
    const data = collected();
    const [file] = landedFilesOfSession(data, FIXTURE_SESSIONS.compaction);
    const sd = file!.path.replace(/\.jsonl$/, '.sd');
    tamper(sd, (content) => Buffer.from(content.toString().split('\n').slice(0, -2).join('\n') + '\n'));
    const [other] = landedFilesOfSession(data, FIXTURE_SESSIONS.rewind);
    const otherSd = other!.path.replace(/\.jsonl$/, '.sd');
    tamper(otherSd, (content) => Buffer.from(content.toString().replace('Rain on the tin roof.', 'Snow on the tin roof.')));
    fs.writeFileSync(path.join(path.dirname(file!.path), 'notes.txt'), 'mine');
    const { problems } = verifyStorage(data, { deep: true, converters: CONVERTERS });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: relative(data, path.join(path.dirname(file!.path), 'notes.txt')), what: 'a file the storage layout has no place for' },
        { path: relative(data, sd), what: 'it has 6 rows for 7 landed records (expected one row per record)' },
        // The row cut off: the row derived again has no archived line to match.
        { path: relative(data, sd), what: expect.stringMatching(/^deriving it again from its landed file gives different bytes, first on line 8, row 7 \(expected a line with sha256 [0-9a-f]{64}, found no more rows\)$/) },
        { path: relative(data, otherSd), what: expect.stringMatching(/^deriving it again from its landed file gives different bytes, first on line 3, row 2 \(expected a line with sha256 [0-9a-f]{64}, found a line with sha256 [0-9a-f]{64}\)$/) },
      ]),
    );
  });

  it('with deep, assembles every conversation again from the rows derived again, and names the first field that differs from its fold', () => {
    const data = collected();
    parseSession(data, FIXTURE_SESSIONS.rewind);
    const { indexes } = verifyStorage(data, { deep: true, converters: CONVERTERS });
    expect(indexes.get(FIXTURE_SESSIONS.rewind)!.entries.length).toBeGreaterThan(0);
    expect(verifyAssemblies(data, indexes)).toEqual([]);
    // Evidence the fold was not made from: the session without its last record, the leaf pointer.
    const index = indexes.get(FIXTURE_SESSIONS.rewind)!;
    const fewer = new Map([[FIXTURE_SESSIONS.rewind, { ...index, entries: index.entries.slice(0, -1) }]]);
    const [problem] = verifyAssemblies(data, fewer);
    expect(problem).toEqual({ path: `_conversations/${FIXTURE_SESSIONS.rewind}`, what: 'assembling its evidence again does not give the structure its rounds fold to: nodes branch/active, field attrs.chosen_by (expected "leaf_pointer" as folded, found "newest_leaf" assembled again)' });
    expect(roundFiles(data, FIXTURE_SESSIONS.rewind)).toHaveLength(1);
  });
});
