// The command run from a bundle of src/ kept for the exact source: built on
// first use, the same command table as the source, every module still
// finding the files beside its own source, and a collection worker of its
// own that lands as one thread does with no TypeScript loader.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../../src/adapters/claude-code/discover.ts';
import { COMMANDS } from '../../src/cli/main.ts';
import { sharesFor, type WorkerMessage, type WorkerTask } from '../../src/cores/work-on-cores.ts';
import type { CollectionTask } from '../../src/collection/parallel.ts';
import type { SessionOutcome } from '../../src/collection/outcome.ts';
import type { DiscoveredSession } from '../../src/adapters/adapter.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { collectOnce, copyOfFixtures, filesOf, temporaryFolder } from '../helpers.ts';

interface KeptCommandModule {
  keptCommand(): Promise<{ COMMANDS: { synopsis: string }[] } | undefined>;
  sourceDigest(source?: string): string;
  KEPT_COMMANDS: string;
}

const repository = fileURLToPath(new URL('../..', import.meta.url));
// A plain JavaScript module with no types: imported by a path the type checker does not follow.
const keptCommandModule: string = '../../src/cli/kept-command.mjs';

describe('the kept command', () => {
  it('is a bundle kept for the exact source, with the source’s commands, whose modules see their own source files', { timeout: 60_000 }, async () => {
    const { keptCommand, sourceDigest, KEPT_COMMANDS } = (await import(keptCommandModule)) as KeptCommandModule;
    const kept = await keptCommand();
    expect(kept).toBeDefined();
    expect(kept!.COMMANDS.map((command) => command.synopsis)).toEqual(COMMANDS.map((command) => command.synopsis));
    const bundle = codeOf(path.join(KEPT_COMMANDS, sourceDigest()));
    expect(bundle).not.toContain('import.meta.url');
    // The TypeScript entry points of workers are found beside their source, not beside the bundle.
    expect(bundle).toContain(JSON.stringify(pathToFileURL(path.join(repository, 'src/collection/parallel.ts')).href));
  });

  it('is kept for one source folder: the same files in another folder are another bundle', async () => {
    const { sourceDigest } = (await import(keptCommandModule)) as KeptCommandModule;
    const copy = path.join(temporaryFolder(), 'src');
    fs.cpSync(path.join(repository, 'src'), copy, { recursive: true });
    expect(sourceDigest(copy)).not.toBe(sourceDigest());
    // And a change of content is another bundle in the same folder.
    const before = sourceDigest(copy);
    fs.appendFileSync(path.join(copy, 'cli', 'main.ts'), '\n');
    expect(sourceDigest(copy)).not.toBe(before);
  });

  it('has a collection worker of its own, which lands what one thread does and needs no TypeScript loader', { timeout: 60_000 }, async () => {
    const { keptCommand, sourceDigest, KEPT_COMMANDS } = (await import(keptCommandModule)) as KeptCommandModule;
    expect(await keptCommand()).toBeDefined();
    const worker = path.join(KEPT_COMMANDS, sourceDigest(), 'collection-worker.js');
    // Started the way work-on-cores.ts starts it in the bundle: from the bundle's folder, which its build defines.
    expect(codeOf(path.dirname(worker))).toContain(JSON.stringify(`${pathToFileURL(path.dirname(worker)).href}/`));

    const root = copyOfFixtures();
    const alone = temporaryFolder();
    collectOnce(root, alone);
    const data = temporaryFolder();
    const sessions = discoverSessions(root).sessions;
    const task: WorkerTask<DiscoveredSession, CollectionTask> = { items: sessions, shares: sharesFor(sessions.length), task: { options: { data, sourceRoot: root }, adapter: claudeCodeAdapter.location } };
    // No loader in execArgv: a source file it imported would fail to load.
    const thread = new Worker(pathToFileURL(worker), { execArgv: [] });
    const outcomes: SessionOutcome[] = [];
    const ended = await new Promise<WorkerMessage<SessionOutcome>>((resolve, reject) => {
      thread.on('message', (message: WorkerMessage<SessionOutcome>) => (message.type === 'outcome' ? outcomes.push(message.outcome) : resolve(message)));
      thread.on('error', reject);
      thread.postMessage(task);
    });
    await thread.terminate();
    expect(ended).toEqual({ type: 'done' });
    expect(outcomes.map((outcome) => outcome.session).sort()).toEqual(sessions.map((session) => session.id).sort());
    expect(verifyStorage(data).problems).toEqual([]);
    // The same landed records and `.sd` rows as one thread's, but for the time in the landed names and headers.
    const withoutTimes = (folder: string) => new Map([...filesOf(folder)].filter(([file]) => /\.(jsonl|sd)$/.test(file)).map(([file, bytes]) => [file.replace(/-\d{8}T[^-]*-/, '-'), bytes.toString('utf8').replace(/"at":"[^"]*"|"of":"[^"]*"|"of_sha":"[^"]*"/g, '')]));
    expect(withoutTimes(data)).toEqual(withoutTimes(alone));
  });
});

/** The bundle's entry point and the chunks its entry points share. */
function codeOf(folder: string): string {
  return fs.readdirSync(folder).filter((name) => name === 'main.js' || name.startsWith('chunk-')).map((name) => fs.readFileSync(path.join(folder, name), 'utf8')).join('');
}
