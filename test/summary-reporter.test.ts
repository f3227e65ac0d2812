// The test summary CI reads names every file whose tests were skipped, with
// the reason its suite stated, and still ends with the one closing line.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('..', import.meta.url));

describe('the test summary', () => {
  it('says which suites skipped and why, before its closing line', { timeout: 120_000 }, () => {
    // Inside the repository, so that the probe's imports find vitest; removed after.
    const probe = fs.mkdtempSync(path.join(repository, 'test', '.summary-probe-'));
    try {
      const requirements = JSON.stringify(path.join(repository, 'test', 'requirements.ts'));
      fs.writeFileSync(
        path.join(probe, 'needs.test.ts'),
        [
          "import { expect, it, describe } from 'vitest';",
          `import { describeWhere, programMissing, filesMissing } from ${requirements};`,
          "describeWhere(programMissing('/no/such/browser'), 'a browser suite', () => { it('runs', () => expect(1).toBe(1)); it('runs again', () => expect(1).toBe(1)); });",
          "describeWhere(filesMissing('/no/such/corpus/MANIFEST.json'), 'a corpus suite', () => { it('reads', () => expect(1).toBe(1)); });",
          "describeWhere(undefined, 'a suite that runs', () => { it('passes', () => expect(1).toBe(1)); });",
          "describe.skip('a suite skipped with no reason', () => { it('is skipped', () => expect(1).toBe(1)); });",
        ].join('\n'),
      );
      const run = spawnSync(process.execPath, [path.join(repository, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', probe, '--reporter', path.join(repository, 'test', 'summary-reporter.ts')], { encoding: 'utf8', cwd: probe });
      expect(run.status, run.stderr).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toBe('1 passed, 0 failed, 4 skipped');
      expect(lines.slice(-4, -1)).toEqual([
        'skipped: needs.test.ts: /no/such/browser is not installed (2 tests)',
        `skipped: needs.test.ts: ${path.relative(repository, '/no/such/corpus/MANIFEST.json')} is not there (1 test)`,
        'skipped: needs.test.ts: no reason stated (1 test)',
      ]);
    } finally {
      fs.rmSync(probe, { recursive: true, force: true });
    }
  });
});
