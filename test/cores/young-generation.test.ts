import { describe, expect, it } from 'vitest';
import { workerModule, workOnCores } from '../../src/cores/work-on-cores.ts';

const WORKER = workerModule('young-generation-worker', new URL('./young-generation-worker.mjs', import.meta.url));

async function limitsOfWorkers(youngGenerationMb: number | undefined): Promise<number[]> {
  const outcomes = await workOnCores<string, Record<string, never>, { item: string; youngGenerationMb: number }>({
    items: ['a', 'b'],
    threads: 2,
    workersOnly: true,
    name: 'the test worker',
    worker: WORKER,
    task: {},
    here: () => {},
    itemKey: (item) => item,
    outcomeKey: (outcome) => outcome.item,
    lost: (item) => ({ item, youngGenerationMb: -1 }),
    ...(youngGenerationMb !== undefined ? { youngGenerationMb } : {}),
  });
  return outcomes.map((outcome) => outcome.youngGenerationMb);
}

describe('work on cores with a young generation capped', () => {
  it('starts every worker with the young generation asked for, and with V8’s own otherwise', { timeout: 60_000 }, async () => {
    expect(await limitsOfWorkers(12)).toEqual([12, 12]);
    expect((await limitsOfWorkers(undefined)).every((limit) => limit !== 12)).toBe(true);
  });
});
