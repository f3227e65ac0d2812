import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { storedSessions } from '../../src/landing/session-folder.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { copyOfFixtures, temporaryFolder } from '../helpers.ts';
import { LAUNCHER, sessionizer } from './launcher.ts';

describe('the sessionizer command', () => {
  it('lists every command of the design with --help, marking those not built yet', () => {
    const { code, out } = sessionizer(['--help']);
    expect(code).toBe(0);
    for (const name of ['sources', 'collect', 'parse', 'conversation', 'branches', 'fork', 'restore', 'export', 'verify', 'glossary']) {
      expect(out).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
    expect(out).toMatch(/land new source data\n/);
    expect(out).toMatch(/the bundle, the static site, the manifest and root digest, a \.tar\.zst with --archive/);
  });

  it('reads a damaged archive as a stream, with --deep too, and exits 1 naming the damage', () => {
    const file = path.join(temporaryFolder(), 'export.tar.zst');
    fs.writeFileSync(file, 'x');
    for (const deep of [[], ['--deep']]) {
      const damaged = sessionizer(['verify', file, ...deep]);
      expect(damaged.code).toBe(1);
      expect(damaged.error).toMatch(/the archive is cut short or damaged/);
    }
  });

  it('exits 2 on a usage error and names what was wrong', () => {
    const unknown = sessionizer(['collect', '--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.error).toMatch(/^sessionizer collect: Unknown option '--frobnicate'/);
    const command = sessionizer(['frobnicate']);
    expect(command.code).toBe(2);
    expect(command.error).toMatch(/^sessionizer: unknown command "frobnicate"/);
  });

  it('rejects a missing --source with exit 1, naming the folder', () => {
    const { code, error } = sessionizer(['sources', '--source', '/no/such/folder']);
    expect(code).toBe(1);
    expect(error).toBe('sessionizer sources: --source /no/such/folder: no such folder\n');
  });

  it('lists sources as stable JSON', () => {
    const root = copyOfFixtures();
    const { code, out } = sessionizer(['sources', '--source', root, '--json']);
    expect(code).toBe(0);
    const listed = JSON.parse(out) as { root: string; origin: string; sessions: { id: string; primary?: string; sources: { path: string; kind: string; place: string }[] }[] };
    expect(listed.origin).toBe('option');
    expect(listed.sessions.length).toBe(Object.keys(FIXTURE_SESSIONS).length);
    expect(listed.sessions.find((session) => session.id === FIXTURE_SESSIONS.prunedMain)!.primary).toBeUndefined();
  });

  it('falls back to the sample corpus when there is no Claude Code history, and says so', () => {
    const home = temporaryFolder();
    const { code, error } = sessionizer(['sources'], { environment: { HOME: home, CLAUDE_CONFIG_DIR: '', XDG_CONFIG_HOME: '' } });
    expect(code).toBe(0);
    expect(error).toMatch(/^no Claude Code history found .* using the sample corpus in .*fixtures\/claude-code\/projects\n/);
  });

  it('collects once, quietly in a pipe, exits 1 on a conflict and 0 when all is well', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const first = sessionizer(['collect', '--once', '--source', root, '--data', data, '--json']);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out) as { totals: { files: number; records: number } };
    expect(report.totals.files).toBeGreaterThan(20);
    expect(first.error).toBe('');
    const transcript = path.join(root, '-home-user-fixtures-rewind', `${FIXTURE_SESSIONS.rewind}.jsonl`);
    fs.truncateSync(transcript, 10);
    const second = sessionizer(['collect', '--once', '--source', root, '--data', data]);
    expect(second.code).toBe(1);
    expect(second.error).toContain(`error: ${FIXTURE_SESSIONS.rewind} -home-user-fixtures-rewind/${FIXTURE_SESSIONS.rewind}.jsonl: the file was truncated: `);
    expect(second.out).toMatch(/^landed 0 files, 0 records/m);
  });

  // An export of the 1 GB benchmark corpus once exited 1 with nothing on
  // standard error: a session that failed as a whole (there, a batch that
  // could not be committed; here, a landed file whose missing `.sd` cannot
  // be derived again) was counted as a failure and never named.
  it('names every session that could not be collected when an export exits 1 for it', { timeout: 180_000 }, () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    expect(sessionizer(['collect', '--once', '--source', root, '--data', data]).code).toBe(0);
    const [landed] = landedFilesOfSession(data, FIXTURE_SESSIONS.rewind);
    fs.rmSync(landed!.path.replace(/\.jsonl$/, '.sd'));
    fs.chmodSync(landed!.path, 0o644);
    fs.writeFileSync(landed!.path, 'not a landed file\n');
    const result = sessionizer(['export', '--source', root, '--data', data, '--out', path.join(temporaryFolder(), 'export'), '--json']);
    expect(result.code).toBe(1);
    // Notes (a line still being written, say) may come between; the errors come in this order.
    const said = result.error.split('\n').filter((line) => line.startsWith('error: '));
    expect(said[0]).toBe(`error: ${landed!.path}: line 1: the header line is not JSON`);
    expect(said[1]).toMatch(new RegExp(`^error: conversation ${FIXTURE_SESSIONS.rewind} is left out of this export: ENOENT: .*\\.sd'$`));
    const exported = JSON.parse(result.out) as { conversations: number };
    expect(exported.conversations).toBe(storedSessions(data).length - 1);
  });
});

describe('collect without --once', () => {
  it('keeps landing new lines every interval until interrupted', async () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const child = spawn(process.execPath, [LAUNCHER, 'collect', '--source', root, '--data', data, '--interval', '0.3', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const passes = (): { totals: { records: number } }[] => out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const waitFor = async (condition: () => boolean): Promise<void> => {
      for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(condition()).toBe(true);
    };
    try {
      await waitFor(() => passes().length >= 1);
      const transcript = path.join(root, '-home-user-fixtures-rewind', `${FIXTURE_SESSIONS.rewind}.jsonl`);
      fs.appendFileSync(transcript, '{"type":"user","uuid":"late-1","message":{"role":"user","content":"later"}}\n');
      await waitFor(() => passes().some((pass, index) => index > 0 && pass.totals.records === 1));
    } finally {
      child.kill('SIGINT');
    }
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
  }, 30_000);
});

describe('parse, conversation and glossary', () => {
  it('names a session it cannot parse, exits 1, and parses the others', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    sessionizer(['collect', '--once', '--source', root, '--data', data]);
    const broken = FIXTURE_SESSIONS.rewind;
    const sd = landedFilesOfSession(data, broken)[0]!.path.replace(/\.jsonl$/, '.sd');
    fs.chmodSync(sd, 0o644);
    fs.writeFileSync(sd, 'not a .sd\n');
    const parsed = sessionizer(['parse', '--data', data]);
    expect(parsed.code).toBe(1);
    expect(parsed.error).toContain(`error: session ${broken}: ${sd}`);
    // One line a session, then one for the session whose records a summary in another session's file names, parsed again with it.
    expect(parsed.out.trim().split('\n').map((line) => line.slice(0, line.indexOf(':')))).toEqual([...storedSessions(data).filter((session) => session !== broken), FIXTURE_SESSIONS.summarisedElsewhere]);
  });

  it('parses collected data into rounds and prints the folded conversation as stable JSON and as a tree', { timeout: 60_000 }, () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    sessionizer(['collect', '--once', '--source', root, '--data', data]);
    const parsed = sessionizer(['parse', '--data', data]);
    expect(parsed.code).toBe(0);
    expect(parsed.out).toContain(`${FIXTURE_SESSIONS.nestedAgents}: round 1 through landed sequence 5`);
    // One line a session, in the order of the storage zone, whichever thread parsed it; then one for the
    // session whose records a summary in another session's file names, parsed again with it.
    expect(parsed.out.trim().split('\n').map((line) => line.slice(0, line.indexOf(':')))).toEqual([...storedSessions(data), FIXTURE_SESSIONS.summarisedElsewhere]);
    expect(parsed.out).toContain(`${FIXTURE_SESSIONS.summarisedElsewhere}: round 2 through landed sequence 1: `);
    expect(parsed.out).toMatch(/, as a summary in another session’s file names its records\n$/);
    expect(sessionizer(['parse', '--data', data]).out).toContain(`${FIXTURE_SESSIONS.nestedAgents}: unchanged`);
    const json = sessionizer(['conversation', FIXTURE_SESSIONS.nestedAgents, '--data', data, '--json']);
    expect(json.code).toBe(0);
    const folded = JSON.parse(json.out) as { conversation: string; head: { round: number }; rounds: number; nodes: Record<string, unknown>[]; relations: unknown[]; unresolved: unknown[]; counts: Record<string, number> };
    expect(Object.keys(folded)).toEqual(['conversation', 'title', 'title_source', 'project', 'git_branches', 'models', 'head', 'rounds', 'nodes', 'relations', 'unresolved', 'counts']);
    expect(Object.keys(folded.nodes[0]!).sort()).toEqual(['attrs', 'id', 'kind', 'parent', 'ref', 'refs', 'revision', 'stream'].filter((key) => key in folded.nodes[0]!).sort());
    expect(folded.counts).toMatchObject({ talks: 3, tool_uses: 2, tool_uses_joined: 2 });
    const tree = sessionizer(['conversation', FIXTURE_SESSIONS.nestedAgents, '--data', data, '--terms', 'both']);
    expect(tree.out).toMatch(/^\s+llm\.call \(message\.id\) 1 fragments @1:2 {2}main\/call\//m);
    expect(tree.out).toContain('2 of 2 tool uses joined');
    const missing = sessionizer(['conversation', 'no-such-conversation', '--data', data]);
    expect(missing.code).toBe(1);
    expect(missing.error).toMatch(/no rounds/);
    const verified = sessionizer(['verify', data]);
    expect(verified.code).toBe(0);
    const chains = Object.keys(FIXTURE_SESSIONS).length - 1; // the empty session lands nothing
    // One round a chain, and a second in the chain of the session a summary in another session's file names.
    expect(verified.out).toContain(`and ${chains + 1} rounds in ${chains} chains: all intact`);
  });

  it('prints the glossary', () => {
    const { code, out } = sessionizer(['glossary', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out).entries.run.native).toBe('promptId');
  });
});
