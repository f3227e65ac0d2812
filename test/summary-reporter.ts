// Prints one plain closing line, `N passed, N failed, N skipped`, after
// vitest's own report. CI reads that line to know that tests ran and how
// they ended; vitest's coloured summary is not one it reads.
//
// Before it, a line for each test file with skipped tests says why:
// `skipped: FILE: REASON`, the reason a suite stated with describeWhere
// (requirements.ts), so that a suite skipped for want of Chromium or of
// ../shared/corpus is never silent.

import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons: string[] = [];
    for (const module of testModules) {
      const skippedHere = new Map<string, number>();
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          skipped++;
          const reason = test.meta().missing ?? 'no reason stated';
          skippedHere.set(reason, (skippedHere.get(reason) ?? 0) + 1);
        }
      }
      const file = path.relative(this.root, module.moduleId);
      for (const [reason, count] of skippedHere) reasons.push(`skipped: ${file}: ${reason} (${count} test${count === 1 ? '' : 's'})\n`);
    }
    process.stdout.write(`\n${reasons.join('')}${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
