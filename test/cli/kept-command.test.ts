// The command run from a bundle of src/ kept for the exact source: built on
// first use, the same command table as the source, and every module still
// finding the files beside its own source.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.ts';

interface KeptCommandModule {
  keptCommand(): Promise<{ COMMANDS: { synopsis: string }[] } | undefined>;
  sourceDigest(): string;
  KEPT_COMMANDS: string;
}

const repository = fileURLToPath(new URL('../../', import.meta.url));
// A plain JavaScript module with no types: imported by a path the type checker does not follow.
const keptCommandModule: string = '../../src/cli/kept-command.mjs';

describe('the kept command', () => {
  it('is a bundle kept for the exact source, with the source’s commands, whose modules see their own source files', { timeout: 60_000 }, async () => {
    const { keptCommand, sourceDigest, KEPT_COMMANDS } = (await import(keptCommandModule)) as KeptCommandModule;
    const kept = await keptCommand();
    expect(kept).toBeDefined();
    expect(kept!.COMMANDS.map((command) => command.synopsis)).toEqual(COMMANDS.map((command) => command.synopsis));
    const bundle = fs.readFileSync(path.join(KEPT_COMMANDS, sourceDigest(), 'main.js'), 'utf8');
    expect(bundle).not.toContain('import.meta.url');
    // The collection's worker entry point is found beside its source, not beside the bundle.
    expect(bundle).toContain(JSON.stringify(pathToFileURL(path.join(repository, 'src/collection/parallel.ts')).href));
  });
});
