// The renderer child an export starts as it begins (site/generator/renderer-child.ts,
// WaitingRenderer): it renders the site when the site step comes, and is
// stopped, leaving no process and no build root, whenever the export ends
// without rendering. Every child the export spawns is recorded, with the
// step that was running when it was spawned.

import { spawn as spawnProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/adapter.ts';
import { sessionMatcher } from '../../src/adapters/claude-code/filters.ts';
import { exportConversations, type ExportOutcome, type ExportRequest } from '../../src/export/pipeline.ts';
import { BUILD_ROOTS, forgetKeptRenderers, keptRenderer, siteBuildRoots, siteCode } from '../../src/site/generator/kept-renderer.ts';
import { RENDER, WaitingRenderer } from '../../src/site/generator/renderer-child.ts';
import { buildSite, prepareRenderer } from '../../src/site/generator/site.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { LAUNCHER } from '../cli/launcher.ts';
import { growingTranscript } from '../site/growing-transcript.ts';
import { stableUuid, textBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { copyOfFixtures, expectSameFiles, exportedSessions, filesOf, temporaryFolder } from '../helpers.ts';

/** Every process spawned through node:child_process by this file's exports, with the step running then. */
const recorded = vi.hoisted(() => ({ step: undefined as string | undefined, spawned: [] as { pid: number; args: readonly string[]; step: string | undefined }[], givenWork: new Set<number>(), sent: [] as { pid: number; step: string | undefined; more: boolean }[] }));

vi.mock('node:child_process', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:child_process')>();
  const spawn = ((...parameters: Parameters<typeof actual.spawn>) => {
    const child = actual.spawn(...parameters);
    recorded.spawned.push({ pid: child.pid ?? 0, args: (parameters[1] as readonly string[] | undefined) ?? [], step: recorded.step });
    // A child with an IPC channel: what it is sent is its work.
    if (typeof child.send === 'function') {
      const send = child.send.bind(child) as (message: unknown) => boolean;
      child.send = ((message: unknown) => {
        recorded.givenWork.add(child.pid ?? 0);
        recorded.sent.push({ pid: child.pid ?? 0, step: recorded.step, more: (message as { more?: boolean }).more === true });
        return send(message);
      }) as typeof child.send;
    }
    return child;
  }) as typeof actual.spawn;
  return { ...actual, spawn };
});

/** The renderer children spawned since `from` (an index into the record). */
function rendererChildren(from: number): { pid: number; step: string | undefined }[] {
  return recorded.spawned.slice(from).filter(({ args }) => args.includes(RENDER)).map(({ pid, step }) => ({ pid, step }));
}

/** Whether process `pid` runs: neither gone nor a zombie no one has reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** This process's build roots of the site (site.ts names each for the process that made it). */
function ownBuildRoots(): string[] {
  return fs.readdirSync(siteBuildRoots()).filter((name) => name.startsWith(`astro-${process.pid}-`));
}

const SESSIONS = [FIXTURE_SESSIONS.rewind!, FIXTURE_SESSIONS.bareStringResult!];

function request(source: string, data: string, changes: Partial<ExportRequest> = {}): ExportRequest {
  return { adapter: claudeCodeAdapter, source: { root: source, origin: 'option' }, data, out: path.join(data, '..', 'out'), archive: undefined, conversations: SESSIONS, all: false, selected: sessionMatcher({ include: [], exclude: [] }), redaction: undefined, ...changes };
}

async function exported(exportRequest: ExportRequest): Promise<ExportOutcome> {
  recorded.step = undefined;
  try {
    return await exportConversations(exportRequest, {
      observer: {
        step(name) {
          recorded.step = name;
        },
        advance() {},
      },
      tell() {},
    });
  } finally {
    recorded.step = undefined;
  }
}

describe('the renderer child started as an export begins', () => {
  beforeAll(async () => {
    // The child is started only when a renderer is kept for the code, as `npm ci` keeps one.
    expect(await prepareRenderer()).not.toBe('failed');
  }, 300_000);

  it('renders the site, with no other renderer child, and is stopped unused when the site is placed whole from the cache', { timeout: 240_000 }, async () => {
    const source = copyOfFixtures();
    const data = path.join(temporaryFolder(), 'data');
    const first = recorded.spawned.length;
    const outcome = await exported(request(source, data));
    expect(outcome.type).toBe('written');
    const site = outcome.type === 'written' ? outcome.result.site : undefined;
    expect(site?.built).toBeGreaterThan(0);
    // One child, spawned before the collect step, rendered every page.
    expect(rendererChildren(first)).toEqual([{ pid: expect.any(Number), step: undefined }]);

    const second = recorded.spawned.length;
    const again = await exported(request(source, data));
    expect(again.type === 'written' ? again.result.site?.built : undefined).toBe(0);
    const [waiting] = rendererChildren(second);
    expect(rendererChildren(second)).toEqual([{ pid: expect.any(Number), step: undefined }]);
    // Nothing to render: stopped, and its end awaited, by the time the export returns.
    expect(running(waiting!.pid)).toBe(false);
  });

  it('renders a conversation that changed while the rest of the bundle is placed, and the site is the one rendered whole', { timeout: 240_000 }, async () => {
    const { root, data, out, session, transcript, t, writeNewLines } = await growingTranscript('rendered ahead of the site step', '-home-user-ahead');
    t.prompt('Say one.');
    t.call([textBlock('One.')]);
    writeNewLines();
    const still = stableUuid('left as it was', 1);
    const other = new Transcript({ session: still });
    other.prompt('Say two.');
    other.call([textBlock('Two.')]);
    fs.writeFileSync(path.join(path.dirname(transcript), `${still}.jsonl`), other.drain());
    const ahead = request(root, data, { out, conversations: [session, still] });
    expect((await exported(ahead)).type).toBe('written');

    t.prompt('Say three, in `code`.');
    t.call([textBlock('Three:\n\n```ts\nconst three = 3;\n```')]);
    writeNewLines();
    const sentBefore = recorded.sent.length;
    const spawnedBefore = recorded.spawned.length;
    const outcome = await exported(ahead);
    expect(outcome.type).toBe('written');
    const site = outcome.type === 'written' ? outcome.result.site : undefined;
    expect(site?.built).toBeGreaterThan(0);
    // One child: given the changed conversation as the bundle was placed, then the site step's work.
    const [child] = rendererChildren(spawnedBefore);
    expect(rendererChildren(spawnedBefore)).toHaveLength(1);
    expect(recorded.sent.slice(sentBefore).filter(({ pid }) => pid === child!.pid)).toEqual([
      { pid: child!.pid, step: 'bundle', more: true },
      { pid: child!.pid, step: 'site', more: false },
    ]);
    expect(fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8')).toContain('Say three');
    // The same bytes as a site rendered whole from the export's bundle, with no cache and no child waiting.
    const whole = path.join(temporaryFolder(), 'site');
    await buildSite(path.join(out, 'bundle'), whole, path.join(temporaryFolder(), 'cache'), { builds: 1 });
    expectSameFiles(filesOf(path.join(out, 'site')), filesOf(whole));
    expect(ownBuildRoots()).toEqual([]);
  });

  it('is stopped, leaving no process and no build root, when the export fails in the collect step or ends before rendering', { timeout: 240_000 }, async () => {
    const source = copyOfFixtures();
    const data = path.join(temporaryFolder(), 'data');
    const failing = recorded.spawned.length;
    const broken = {
      ...claudeCodeAdapter,
      discover(): never {
        throw new Error('a source that cannot be discovered');
      },
    };
    await expect(exported(request(source, data, { adapter: broken }))).rejects.toThrow('a source that cannot be discovered');
    const [child] = rendererChildren(failing);
    expect(rendererChildren(failing)).toEqual([{ pid: expect.any(Number), step: undefined }]);
    expect(running(child!.pid)).toBe(false);
    expect(ownBuildRoots()).toEqual([]);

    // A conversation asked for that nothing landed for: the export ends after the collect step.
    const unknown = recorded.spawned.length;
    expect((await exported(request(source, data, { conversations: ['no-such-conversation'] }))).type).toBe('unknown conversations');
    const [unused] = rendererChildren(unknown);
    expect(rendererChildren(unknown)).toEqual([{ pid: expect.any(Number), step: undefined }]);
    expect(running(unused!.pid)).toBe(false);
    expect(ownBuildRoots()).toEqual([]);
  });

  it('has ended once any call to stop it resolves, the second as the first', { timeout: 120_000 }, async () => {
    const waiting = WaitingRenderer.start()!;
    expect(waiting).toBeDefined();
    void waiting.dismiss();
    await waiting.dismiss();
    expect(running(waiting.pid)).toBe(false);
    // Stopped, it is no child to give work to.
    expect(waiting.take(waiting.entry)).toBeUndefined();
  });

  it('ends with the command when the command is sent SIGTERM', { timeout: 240_000 }, async () => {
    const source = copyOfFixtures();
    const work = temporaryFolder();
    const command = spawnProcess(process.execPath, [LAUNCHER, 'export', '--source', source, '--data', path.join(work, 'data'), '--out', path.join(work, 'out')], { stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => command.on('exit', (_code, signal) => resolve(signal)));
    // The command's renderer child, as soon as it is there: it is started as the export begins.
    let child: number | undefined;
    while (child === undefined && command.exitCode === null) {
      child = childrenOf(command.pid!).find((pid) => readCommandLine(pid).includes(RENDER));
      if (child === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(child).toBeDefined();
    command.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    // The child was sent the signal before the command ended: it ends at once.
    for (let tries = 0; tries < 500 && running(child!); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(running(child!)).toBe(false);
  });
});

describe('the waiting renderer at the site step', () => {
  // Build roots of this test's own, inside node_modules like the default
  // one, so that the renderers it damages and removes are no other test's.
  let roots = '';
  beforeAll(() => {
    fs.mkdirSync(BUILD_ROOTS, { recursive: true });
    roots = fs.mkdtempSync(path.join(BUILD_ROOTS, 'test-waiting-'));
  });
  afterAll(() => fs.rmSync(roots, { recursive: true, force: true }));

  it('is not given work when the renderer kept at the site step is not the one it loaded, and one it loaded that fails is made again', { timeout: 480_000 }, async () => {
    expect(await prepareRenderer(roots)).toBe('made');
    const bundle = path.join(await exportedSessions(SESSIONS), 'bundle');
    const folder = temporaryFolder();
    const site = (name: string, waitingRenderer: WaitingRenderer | undefined) => buildSite(bundle, path.join(folder, name), path.join(folder, `cache-${name}`), { buildRoots: roots, builds: 1, ...(waitingRenderer ? { waitingRenderer } : {}) });
    await site('reference', undefined);
    const reference = filesOf(path.join(folder, 'reference'));

    // Loaded, and then no renderer is kept at the site step: one is made, and
    // the child, which loaded another, is stopped with no work.
    const stale = WaitingRenderer.start(roots)!;
    expect(stale).toBeDefined();
    forgetKeptRenderers(roots);
    await site('made-anew', stale);
    expect(recorded.givenWork.has(stale.pid)).toBe(false);
    expect(running(stale.pid)).toBe(false);
    expectSameFiles(filesOf(path.join(folder, 'made-anew')), reference);

    // A kept renderer that fails as the child loads it: the child is the lead
    // of the first attempt, which fails; the renderer is made again, and
    // renders the site with children of its own.
    const entry = keptRenderer(siteCode(), roots)!;
    fs.chmodSync(entry, 0o644);
    fs.writeFileSync(entry, 'throw new Error("a damaged renderer");\n');
    const damaged = WaitingRenderer.start(roots)!;
    const before = recorded.spawned.length;
    await site('made-again', damaged);
    expect(recorded.givenWork.has(damaged.pid)).toBe(true);
    expect(running(damaged.pid)).toBe(false);
    expect(rendererChildren(before).length).toBeGreaterThan(0);
    expectSameFiles(filesOf(path.join(folder, 'made-again')), reference);
    expect(fs.readFileSync(keptRenderer(siteCode(), roots)!, 'utf8')).not.toContain('a damaged renderer');
  });
});

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent's id follows the state, after the command's name in parentheses.
      const parent = /\) \S+ (\d+)/.exec(fs.readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (Number(parent) === pid) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

function readCommandLine(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}
