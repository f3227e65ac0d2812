import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../../src/adapters/claude-code/discover.ts';
import { readCursor } from '../../src/landing/cursor.ts';
import { digestOf } from '../../src/files/digest.ts';
import { lockPath, sessionStatePath } from '../../src/landing/layout.ts';
import { landedFilesOfSession, readSessionState } from '../../src/landing/session-state.ts';
import { collectSession } from '../../src/collection/collector.ts';
import { LANDED_FILE_BYTES } from '../../src/collection/landing-writer.ts';
import type { SessionOutcome } from '../../src/collection/outcome.ts';
import { collectAllOnCores } from '../../src/collection/collect-all.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_AGENTS, FIXTURE_RUN, FIXTURE_SESSIONS, PARTIAL_LINE, PARTIAL_LINE_WRITTEN } from '../../scripts/write-fixtures.ts';
import { STOPPING_EXIT_CODE, STOPPING_SESSION, stoppingAdapter } from './stopping-adapter.ts';
import { collectOnce, completeLines, copyOfFixtures, landedOf, sessionDataOf, temporaryFolder } from '../helpers.ts';

function mainTranscript(root: string, session: string): string {
  const found = discoverSessions(root).sessions.find((candidate) => candidate.id === session)!;
  return found.sources.find((source) => source.place.type === 'stream' && source.place.stream === 'main')!.path;
}

/** Every file and folder under `folder`, with what changes when one is written, replaced, or has a name made or removed in it. */
function stampsUnder(folder: string): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const stat = fs.statSync(file, { bigint: true });
    stamps.set(path.relative(folder, file), `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`);
  }
  const top = fs.statSync(folder, { bigint: true });
  stamps.set('.', `${top.ino}:${top.mtimeNs}`);
  return stamps;
}

function sourceOutcomes(report: ReturnType<typeof collectOnce>, session: string) {
  return report.sessions.find((outcome) => outcome.session === session)!.sources;
}

describe('collect', () => {
  it('lands every complete source line byte for byte, in the storage layout, read-only', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const discovery = discoverSessions(root);
    let sessionsWithData = 0;
    for (const session of discovery.sessions) {
      const landed = landedOf(data, session.id);
      for (const source of session.sources) {
        const files = landed.filter((file) => file.header.src === source.relative);
        const records = files.flatMap((file) => file.records);
        if (source.nature === 'append') {
          const lines = completeLines(source.path);
          expect(records.map((record) => record.payload.toString('base64')), source.relative).toEqual(lines.map((line) => line.toString('base64')));
          expect(records.map((record) => record.ord)).toEqual(lines.map((_, index) => index + 1));
          for (const record of records) expect(record.sha).toBe(digestOf(record.payload));
        } else {
          expect(records.length).toBe(1);
          expect(records[0]!.payload.equals(fs.readFileSync(source.path))).toBe(true);
        }
        for (const file of files) {
          expect(fs.statSync(file.path).mode & 0o777).toBe(0o444);
          const folder = source.place.type === 'stream' ? `streams/${source.place.stream}` : `runs/${source.place.run}`;
          expect(file.relative.startsWith(`${folder}/${source.prefix}-`), file.relative).toBe(true);
          expect(file.header).toMatchObject({ h: 1, kind: source.kind, adapter: 'claude-code/0.1.0', session: session.id, state: 'available' });
        }
      }
      if (landed.length > 0) sessionsWithData++;
      // One counter across every stream of the session: 1, 2, 3, … with no gap.
      expect(landed.map((file) => file.header.seq)).toEqual(landed.map((_, index) => index + 1));
    }
    expect(sessionsWithData).toBe(discovery.sessions.length - 1); // all but the empty session
  });

  it('writes one .sd per landed file with the same sequence number and one row per record', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    for (const session of Object.values(FIXTURE_SESSIONS)) {
      for (const file of landedOf(data, session)) {
        const { header, rows } = sessionDataOf(file.path);
        expect(header).toMatchObject({ schema: 'sd/1', dialect: 'claude-code/2', seq: file.header.seq, session, of: path.basename(file.path), of_sha: digestOf(fs.readFileSync(file.path)) });
        expect(rows.map((row) => row.row)).toEqual(file.records.map((_, index) => index + 1));
        expect(fs.statSync(file.path.replace(/\.jsonl$/, '.sd')).mode & 0o777).toBe(0o444);
      }
    }
  });

  it('lays child streams flat by agent id and workflow files under their run', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const nested = landedOf(data, FIXTURE_SESSIONS.nestedAgents).map((file) => file.relative.replace(/-\d{8}T.*$/, ''));
    expect(nested.sort()).toEqual(
      [
        'streams/main/transcript',
        `streams/${FIXTURE_AGENTS.nestedOuter}/transcript`,
        `streams/${FIXTURE_AGENTS.nestedOuter}/meta`,
        `streams/${FIXTURE_AGENTS.nestedInner}/transcript`,
        `streams/${FIXTURE_AGENTS.nestedInner}/meta`,
      ].sort(),
    );
    const workflow = landedOf(data, FIXTURE_SESSIONS.workflow).map((file) => file.relative.replace(/-\d{8}T.*$/, ''));
    expect(workflow.sort()).toEqual(
      [
        'streams/main/transcript',
        `streams/${FIXTURE_AGENTS.workflowFirst}/transcript`,
        `streams/${FIXTURE_AGENTS.workflowFirst}/meta`,
        `streams/${FIXTURE_AGENTS.workflowSecond}/transcript`,
        `streams/${FIXTURE_AGENTS.workflowSecond}/meta`,
        `runs/${FIXTURE_RUN}/journal`,
        `runs/${FIXTURE_RUN}/manifest`,
        `runs/${FIXTURE_RUN}/script`,
        `runs/${FIXTURE_RUN}/script`,
      ].sort(),
    );
    // The run's files say which run they belong to in their header as well.
    for (const file of landedOf(data, FIXTURE_SESSIONS.workflow).filter((entry) => entry.relative.startsWith('runs/'))) {
      expect(file.header).toMatchObject({ stream: null, run: FIXTURE_RUN });
    }
  });

  it('lands nothing on a second pass over unchanged sources, and exactly an appended line after it', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const before = landedFilesOfSession(data, FIXTURE_SESSIONS.rewind).length;
    const written = stampsUnder(data);
    const again = collectOnce(root, data);
    expect(again.sessions.flatMap((session) => session.sources).flatMap((source) => source.landed)).toEqual([]);
    expect(again.sessions.flatMap((session) => session.sources).map((source) => source.status)).not.toContain('landed');
    // A pass with nothing new writes nothing: no state rewritten with its
    // time, and no lock made and removed, which would change the folders.
    expect(stampsUnder(data)).toEqual(written);

    const file = mainTranscript(root, FIXTURE_SESSIONS.rewind);
    const lines = completeLines(file).length;
    const appended = '{"type":"user","uuid":"appended-1","message":{"role":"user","content":"one more"}}';
    fs.appendFileSync(file, `${appended}\n`);
    collectOnce(root, data);
    const landed = landedOf(data, FIXTURE_SESSIONS.rewind);
    expect(landed.length).toBe(before + 1);
    const last = landed.at(-1)!;
    expect(last.records.map((record) => [record.ord, record.payload.toString()])).toEqual([[lines + 1, appended]]);
    expect(last.header.seq).toBe(before + 1);
    expect(readCursor(path.join(data, FIXTURE_SESSIONS.rewind, 'streams/main/transcript.cursor'))).toMatchObject({ lastRecord: 'appended-1', ord: lines + 1, offset: fs.statSync(file).size });
  });

  it('leaves a partial last line for the next pass and lands it once complete', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const first = collectOnce(root, data);
    const outcome = sourceOutcomes(first, FIXTURE_SESSIONS.partialLine)[0]!;
    expect(outcome.inFlightBytes).toBe(120);
    const file = mainTranscript(root, FIXTURE_SESSIONS.partialLine);
    const complete = completeLines(file).length;
    expect(landedOf(data, FIXTURE_SESSIONS.partialLine).flatMap((landed) => landed.records).length).toBe(complete);
    // A pass while the line is still being written says so again, and lands nothing.
    expect(sourceOutcomes(collectOnce(root, data), FIXTURE_SESSIONS.partialLine)).toEqual([{ ...outcome, status: 'unchanged', landed: [] }]);
    // The writer finishes its line.
    fs.appendFileSync(file, `${PARTIAL_LINE.slice(PARTIAL_LINE_WRITTEN)}\n`);
    collectOnce(root, data);
    const records = landedOf(data, FIXTURE_SESSIONS.partialLine).flatMap((landed) => landed.records);
    expect(records.length).toBe(complete + 1);
    expect(records.at(-1)!.payload.toString()).toBe(PARTIAL_LINE);
  });

  it('lands lines of 1 MB and more, non-JSON lines and invalid UTF-8, and reports each', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const report = collectOnce(root, data);
    const huge = sourceOutcomes(report, FIXTURE_SESSIONS.hugeLine)[0]!;
    expect(huge.problems).toEqual([{ ord: 3, offset: expect.any(Number), what: expect.stringMatching(/^a line of 1\d{6} bytes$/) }]);
    const malformed = sourceOutcomes(report, FIXTURE_SESSIONS.malformedLines)[0]!;
    expect(malformed.problems.map((problem) => [problem.ord, problem.what])).toEqual([
      [2, 'not JSON; landed as text'],
      [3, 'an empty line; landed as text'],
      [4, 'not valid UTF-8; landed as base64'],
    ]);
    const records = landedOf(data, FIXTURE_SESSIONS.malformedLines).flatMap((landed) => landed.records);
    expect(records[3]!.encoding).toBe('base64');
    expect([...records[3]!.payload]).toEqual([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expect(records.length).toBe(completeLines(mainTranscript(root, FIXTURE_SESSIONS.malformedLines)).length);
  });

  it('stops a replaced source with a conflict that names the file, keeps its landed data, and collects the rest', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const file = mainTranscript(root, FIXTURE_SESSIONS.rewind);
    const landedBefore = landedOf(data, FIXTURE_SESSIONS.rewind).map((landed) => fs.readFileSync(landed.path).toString('base64'));
    // Rotation: the same path and content, then more, in a new file renamed over the old one.
    fs.writeFileSync(`${file}.new`, Buffer.concat([fs.readFileSync(file), Buffer.from('{"type":"user","uuid":"x"}\n')]));
    fs.renameSync(`${file}.new`, file);
    const other = mainTranscript(root, FIXTURE_SESSIONS.compaction);
    fs.appendFileSync(other, '{"type":"user","uuid":"y"}\n');
    const report = collectOnce(root, data);
    const outcome = sourceOutcomes(report, FIXTURE_SESSIONS.rewind)[0]!;
    expect(outcome.status).toBe('conflict');
    expect(outcome.message).toMatch(/^the file was replaced: device and inode were \d+\/\d+, now \d+\/\d+\. Collection of this source stopped; its landed data is kept$/);
    expect(landedOf(data, FIXTURE_SESSIONS.rewind).map((landed) => fs.readFileSync(landed.path).toString('base64'))).toEqual(landedBefore);
    expect(sourceOutcomes(report, FIXTURE_SESSIONS.compaction)[0]!.status).toBe('landed');
    // The stop is remembered: the next pass says so again and still lands nothing.
    const next = sourceOutcomes(collectOnce(root, data), FIXTURE_SESSIONS.rewind)[0]!;
    expect(next.status).toBe('conflict');
    expect(next.message).toMatch(/^stopped by an earlier conflict: the file was replaced/);
    expect(landedOf(data, FIXTURE_SESSIONS.rewind).length).toBe(landedBefore.length);
  });

  it('stops a truncated source, and one whose landed bytes were rewritten in place', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const truncated = mainTranscript(root, FIXTURE_SESSIONS.rewind);
    fs.truncateSync(truncated, 100);
    const rewritten = mainTranscript(root, FIXTURE_SESSIONS.compaction);
    const descriptor = fs.openSync(rewritten, 'r+');
    fs.writeSync(descriptor, Buffer.from('X'), 0, 1, 5); // same inode, one byte changed inside the landed prefix
    fs.closeSync(descriptor);
    fs.appendFileSync(rewritten, '{"type":"user","uuid":"z"}\n');
    const report = collectOnce(root, data);
    expect(sourceOutcomes(report, FIXTURE_SESSIONS.rewind)[0]!.message).toMatch(/the file was truncated: \d+ bytes were landed, the file now has 100/);
    expect(sourceOutcomes(report, FIXTURE_SESSIONS.compaction)[0]!.message).toMatch(/the \d+ bytes already landed have changed/);
    expect(landedOf(data, FIXTURE_SESSIONS.compaction).flatMap((landed) => landed.records).some((record) => record.payload.includes('"uuid":"z"'))).toBe(false);
  });

  it('marks a vanished source as gone and keeps what it landed, including a session pruned whole', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const landedBefore = landedOf(data, FIXTURE_SESSIONS.nestedAgents).length;
    fs.rmSync(mainTranscript(root, FIXTURE_SESSIONS.nestedAgents));
    fs.rmSync(mainTranscript(root, FIXTURE_SESSIONS.imageAndText));
    const report = collectOnce(root, data);
    const nested = sourceOutcomes(report, FIXTURE_SESSIONS.nestedAgents).filter((source) => source.status === 'gone');
    expect(nested.map((source) => source.source)).toEqual([`-home-user-fixtures-nested-agents/${FIXTURE_SESSIONS.nestedAgents}.jsonl`]);
    expect(readCursor(path.join(data, FIXTURE_SESSIONS.nestedAgents, 'streams/main/transcript.cursor'))!.state).toBe('source_gone');
    expect(landedOf(data, FIXTURE_SESSIONS.nestedAgents).length).toBe(landedBefore);
    expect(sourceOutcomes(report, FIXTURE_SESSIONS.imageAndText).map((source) => source.status)).toEqual(['gone']);
    expect(landedOf(data, FIXTURE_SESSIONS.imageAndText).length).toBe(1);
  });

  it('re-lands after a crash between landing and the cursor, without reusing a sequence number', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const session = FIXTURE_SESSIONS.compaction;
    // As if the process died after the rename and before the cursor and session.state were written.
    fs.rmSync(path.join(data, session, 'streams/main/transcript.cursor'));
    fs.rmSync(sessionStatePath(data, session));
    collectOnce(root, data);
    const landed = landedOf(data, session);
    expect(landed.map((file) => file.header.seq)).toEqual([1, 2]);
    expect(landed[1]!.records.map((record) => record.payload.toString())).toEqual(landed[0]!.records.map((record) => record.payload.toString()));
    expect(readSessionState(data, session).nextSeq).toBe(3);
  });

  it('derives a missing .sd on the next pass', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const [file] = landedOf(data, FIXTURE_SESSIONS.rewind);
    const sd = file!.path.replace(/\.jsonl$/, '.sd');
    const original = fs.readFileSync(sd);
    fs.rmSync(sd);
    const report = collectOnce(root, data);
    expect(report.sessions.find((session) => session.session === FIXTURE_SESSIONS.rewind)!.mended).toBe(1);
    expect(fs.readFileSync(sd).equals(original)).toBe(true);
  });

  it('leaves a session alone while another collector holds its lock', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    fs.mkdirSync(path.join(data, FIXTURE_SESSIONS.rewind));
    fs.writeFileSync(lockPath(data, FIXTURE_SESSIONS.rewind), 'pid 1 on another-host\n');
    const report = collectOnce(root, data);
    const outcome = report.sessions.find((session) => session.session === FIXTURE_SESSIONS.rewind)!;
    expect(outcome.locked).toBe(`session ${FIXTURE_SESSIONS.rewind} is being collected by another collector (pid 1 on another-host); it was left alone`);
    expect(landedOf(data, FIXTURE_SESSIONS.rewind)).toEqual([]);
    expect(landedOf(data, FIXTURE_SESSIONS.compaction).length).toBe(1);
    // So is a session that has nothing new, rather than said to be unchanged.
    const idle = collectOnce(root, data).sessions.find((session) => session.session === FIXTURE_SESSIONS.compaction)!;
    expect(idle.sources.map((source) => source.status)).toEqual(['unchanged']);
    fs.writeFileSync(lockPath(data, FIXTURE_SESSIONS.compaction), 'pid 1 on another-host\n');
    expect(collectOnce(root, data).sessions.find((session) => session.session === FIXTURE_SESSIONS.compaction)!.locked).toMatch(/is being collected by another collector/);
  });

  it('splits a large backfill into several landed files, and commits the cursor past all of them', { timeout: 30_000 }, () => {
    const root = path.join(temporaryFolder(), 'projects');
    const session = '0f0f0f0f-1111-4222-8333-444455556666';
    fs.mkdirSync(path.join(root, 'big'), { recursive: true });
    const line = JSON.stringify({ type: 'user', uuid: 'u', message: { role: 'user', content: 'x'.repeat(400_000) } });
    const count = Math.ceil((LANDED_FILE_BYTES * 2.5) / line.length);
    fs.writeFileSync(path.join(root, 'big', `${session}.jsonl`), `${line}\n`.repeat(count));
    const data = temporaryFolder();
    const [found] = discoverSessions(root).sessions;
    const outcome = collectSession(found!, { data, adapter: claudeCodeAdapter, sourceRoot: root });
    expect(outcome.sources[0]!.landed.length).toBe(3);
    expect(outcome.sources[0]!.landed.reduce((sum, file) => sum + file.records, 0)).toBe(count);
    expect(readCursor(path.join(data, session, 'streams/main/transcript.cursor'))).toMatchObject({ ord: count, lastSeq: 3 });
  });

  // A batch's landed files are placed a batch before their `.sd`, so a
  // session of three batches or more once had a landed file of this very
  // pass in place without its `.sd` when the session ended, and "mended" it
  // over the `.sd` still waiting in the batch: the 151 MB session of the
  // 1 GB benchmark corpus failed to commit this way.
  it('derives each .sd once when one session lands more batches than are in flight', { timeout: 30_000 }, () => {
    const root = path.join(temporaryFolder(), 'projects');
    const session = '0f0f0f0f-2222-4333-8444-555566667777';
    const subagents = path.join(root, 'many', session, 'subagents');
    fs.mkdirSync(subagents, { recursive: true });
    const record = (text: string) => `${JSON.stringify({ type: 'user', uuid: text, sessionId: session, message: { role: 'user', content: text } })}\n`;
    fs.writeFileSync(path.join(root, 'many', `${session}.jsonl`), record('main'));
    const agents = 200;
    for (let agent = 0; agent < agents; agent++) fs.writeFileSync(path.join(subagents, `agent-a${agent.toString(16).padStart(16, '0')}.jsonl`), record(`agent ${agent}`));
    const data = temporaryFolder();
    const [outcome] = collectOnce(root, data).sessions;
    expect(outcome!.unreadable).toEqual([]);
    expect(outcome!.mended).toBe(0);
    expect(outcome!.sources.filter((source) => source.status === 'landed').length).toBe(agents + 1);
    const landed = landedFilesOfSession(data, session);
    expect(landed.length).toBe(agents + 1);
    for (const file of landed) expect(sessionDataOf(file.path).rows.length, file.path).toBe(1);
  });

  it('lands a new version of a rewritten document, and none of an unchanged one', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const manifest = discoverSessions(root).sessions.find((session) => session.id === FIXTURE_SESSIONS.workflow)!.sources.find((source) => source.kind === 'workflow_manifest')!;
    collectOnce(root, data);
    const versions = () => landedOf(data, FIXTURE_SESSIONS.workflow).filter((file) => file.header.kind === 'workflow_manifest');
    expect(versions().length).toBe(1);
    const rewritten = fs.readFileSync(manifest.path, 'utf8').replace('"completed"', '"killed"');
    fs.writeFileSync(manifest.path, rewritten);
    collectOnce(root, data);
    expect(versions().map((file) => file.records[0]!.payload.toString())).toEqual([rewritten.replace('"killed"', '"completed"'), rewritten]);
  });

  it('leaves no trace of a session that has only empty files', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    expect(fs.existsSync(path.join(data, FIXTURE_SESSIONS.empty))).toBe(false);
  });
});

describe('collect on several cores', () => {
  it('lands and derives exactly what one thread does, and reports the same problems', { timeout: 60_000 }, async () => {
    const root = copyOfFixtures();
    const alone = temporaryFolder();
    const sequential = collectOnce(root, alone);
    const together = temporaryFolder();
    const parallel = await collectAllOnCores({ data: together, adapter: claudeCodeAdapter, discovery: discoverSessions(root), selected: () => true, workers: 2, parallelFromBytes: 0 });
    const summary = (report: typeof sequential) =>
      report.sessions.map((session) => ({
        session: session.session,
        sources: session.sources.map((source) => ({ source: source.source, status: source.status, records: source.landed.map((file) => file.records), problems: source.problems, shapes: [...source.unknownShapes] })),
      }));
    expect(summary(parallel)).toEqual(summary(sequential));
    // Each .sd names its landed file's digest, handed over rather than recomputed.
    expect(verifyStorage(together).problems).toEqual([]);
    for (const session of Object.values(FIXTURE_SESSIONS)) {
      const one = landedOf(alone, session);
      const other = landedOf(together, session);
      expect(other.map((file) => file.relative.replace(/-\d{8}T[^-]*-/, '-'))).toEqual(one.map((file) => file.relative.replace(/-\d{8}T[^-]*-/, '-')));
      const plain = (records: typeof one[number]['records']) => records.map((record) => ({ ...record, payload: record.payload.toString('base64') }));
      other.forEach((file, index) => {
        // Compared as text: deep equality over a 1.5 MB Buffer is slow.
        expect(plain(file.records)).toEqual(plain(one[index]!.records));
        expect(sessionDataOf(file.path).rows).toEqual(sessionDataOf(one[index]!.path).rows);
      });
    }
  });
});

describe('collection on every core, when a worker fails', () => {
  it('fails only the sessions the failed worker had not committed, naming each, and keeps everything landed before', { timeout: 60_000 }, async () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const before = landedOf(data, STOPPING_SESSION).map((file) => ({ file: file.relative, digest: digestOf(fs.readFileSync(file.path)) }));
    expect(before.length).toBeGreaterThan(0);
    const other = FIXTURE_SESSIONS.duplicates;
    for (const session of [STOPPING_SESSION, other]) fs.appendFileSync(mainTranscript(root, session), `{"type":"user","uuid":"appended-${session}"}\n`);

    const report = await collectAllOnCores({ data, adapter: stoppingAdapter, discovery: discoverSessions(root), selected: () => true, workers: 2, workersOnly: true, parallelFromBytes: 0 });
    const stopped = report.sessions.find((session) => session.session === STOPPING_SESSION)!;
    expect(stopped.unreadable).toEqual([`session ${STOPPING_SESSION}: the collection worker stopped with exit code ${STOPPING_EXIT_CODE} before this session was committed; what was committed before stays, and the next pass lands the rest`]);
    // Every session has an outcome; one that failed is named in it. Sessions
    // the failed worker had landed but not committed fail with it.
    expect(report.sessions.map((session) => session.session).sort()).toEqual(discoverSessions(root).sessions.map((session) => session.id).sort());
    for (const session of report.sessions) for (const problem of session.unreadable) expect(problem.startsWith(`session ${session.session}: the collection worker stopped`)).toBe(true);
    // What was landed before is untouched, and the session is not left locked.
    expect(landedOf(data, STOPPING_SESSION).map((file) => ({ file: file.relative, digest: digestOf(fs.readFileSync(file.path)) }))).toEqual(before);
    expect(fs.existsSync(lockPath(data, STOPPING_SESSION))).toBe(false);

    // The next pass lands what the failed worker did not commit, and nothing twice.
    const again = collectOnce(root, data);
    const landedRecords = (outcomes: SessionOutcome[], session: string) => outcomes.find((outcome) => outcome.session === session)?.sources.flatMap((source) => source.landed.map((file) => file.records)) ?? [];
    expect(landedRecords(again.sessions, STOPPING_SESSION)).toEqual([1]);
    expect([...landedRecords(report.sessions, other), ...landedRecords(again.sessions, other)]).toEqual([1]);
    expect(verifyStorage(data).problems).toEqual([]);
  });
});

describe('damage in the storage zone', () => {
  it('recovers the sequence counter from the files when session.state is damaged or empty', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    fs.writeFileSync(sessionStatePath(data, FIXTURE_SESSIONS.rewind), 'schema 1\nnext_seq banana\n');
    fs.appendFileSync(mainTranscript(root, FIXTURE_SESSIONS.rewind), '{"type":"user","uuid":"after-damage"}\n');
    collectOnce(root, data);
    expect(landedOf(data, FIXTURE_SESSIONS.rewind).map((file) => file.header.seq)).toEqual([1, 2]);
    // Empty, as a crash can leave a state file that was replaced with nothing flushed.
    fs.writeFileSync(sessionStatePath(data, FIXTURE_SESSIONS.rewind), '');
    fs.appendFileSync(mainTranscript(root, FIXTURE_SESSIONS.rewind), '{"type":"user","uuid":"after-emptying"}\n');
    collectOnce(root, data);
    expect(landedOf(data, FIXTURE_SESSIONS.rewind).map((file) => file.header.seq)).toEqual([1, 2, 3]);
    // A pass with nothing new writes over the state where it is: what was
    // there before, longer or damaged, leaves nothing behind.
    const text = (): string => fs.readFileSync(sessionStatePath(data, FIXTURE_SESSIONS.rewind), 'utf8');
    fs.appendFileSync(sessionStatePath(data, FIXTURE_SESSIONS.rewind), `# ${'x'.repeat(500)}\nnext_seq banana\n`);
    collectOnce(root, data);
    expect(text()).toMatch(/^schema 1\nnext_seq 4\nliveness unknown\nquiet_since \S+\nlast_scan \S+\n$/);
  });

  it('reports a session it cannot write to and collects the others', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    // A file where the session's folder should be: nothing can be written there.
    fs.writeFileSync(path.join(data, FIXTURE_SESSIONS.rewind), 'not a folder');
    const report = collectOnce(root, data);
    const outcome = report.sessions.find((session) => session.session === FIXTURE_SESSIONS.rewind)!;
    expect(outcome.unreadable).toEqual([expect.stringMatching(new RegExp(`^session ${FIXTURE_SESSIONS.rewind}: .*(ENOTDIR|EEXIST)`))]);
    expect(landedOf(data, FIXTURE_SESSIONS.compaction).length).toBe(1);
    // The sessions landed before it in the same commit batch are not failed with it.
    expect(report.sessions.filter((session) => session.session !== FIXTURE_SESSIONS.rewind).flatMap((session) => session.unreadable)).toEqual([]);
  });
});
