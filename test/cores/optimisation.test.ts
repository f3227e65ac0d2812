import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LATE_OPTIMISATION, lateOptimisationFor } from '../../src/cores/optimisation.ts';

const OPTIMISATION = new URL('../../src/cores/optimisation.ts', import.meta.url).href;

describe('late optimisation', () => {
  it('gives this Node flags its V8 knows: a child started with them runs, and says nothing', () => {
    expect(LATE_OPTIMISATION.length).toBeGreaterThan(0);
    const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    for (const flag of LATE_OPTIMISATION) expect(known).toContain(`  ${flag.replace(/=.*/, '')} `);
    const child = spawnSync(process.execPath, [...LATE_OPTIMISATION, '-e', 'process.stdout.write("ran")'], { encoding: 'utf8' });
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({ status: 0, stdout: 'ran', stderr: '' });
  });

  it('sets them in this process without a word on standard error, which V8 writes to for a flag it does not know', () => {
    const script = `const { optimiseLate } = await import(${JSON.stringify(OPTIMISATION)}); optimiseLate(); process.stdout.write('set');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({ status: 0, stdout: 'set', stderr: '' });
  });

  it('names no flag for a V8 it does not know, whose flags may differ', () => {
    expect(lateOptimisationFor(11)).toEqual(['--interrupt-budget=540000']);
    expect(lateOptimisationFor(12)).toEqual(['--invocation-count-for-turbofan=24000']);
    expect(lateOptimisationFor(14)).toEqual([]);
    expect(lateOptimisationFor(10)).toEqual([]);
  });
});
