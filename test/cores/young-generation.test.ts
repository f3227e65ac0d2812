import { describe, expect, it } from 'vitest';
import { workerModule, workOnCores, WORKER_OLD_GENERATION_MB } from '../../src/cores/work-on-cores.ts';

const WORKER = workerModule('young-generation-worker', new URL('./young-generation-worker.mjs', import.meta.url));

interface Limits {
  readonly item: string;
  readonly youngGenerationMb: number;
  readonly oldGenerationMb: number;
}

async function limitsOfWorkers(limits: { youngGenerationMb?: number; oldGenerationMb?: number }): Promise<Limits[]> {
  return workOnCores<string, Record<string, never>, Limits>({
    items: ['a', 'b'],
    threads: 2,
    workersOnly: true,
    name: 'the test worker',
    worker: WORKER,
    task: {},
    here: () => {},
    itemKey: (item) => item,
    outcomeKey: (outcome) => outcome.item,
    lost: (item) => ({ item, youngGenerationMb: -1, oldGenerationMb: -1 }),
    ...limits,
  });
}

describe('work on cores with a young generation capped', () => {
  it('starts every worker with the young generation asked for, and with V8’s own otherwise', { timeout: 60_000 }, async () => {
    expect((await limitsOfWorkers({ youngGenerationMb: 12 })).map((outcome) => outcome.youngGenerationMb)).toEqual([12, 12]);
    expect((await limitsOfWorkers({})).every((outcome) => outcome.youngGenerationMb !== 12)).toBe(true);
  });

  it('starts every worker with the old generation asked for, and with V8’s own otherwise', { timeout: 60_000 }, async () => {
    expect((await limitsOfWorkers({ youngGenerationMb: 12, oldGenerationMb: WORKER_OLD_GENERATION_MB })).map((outcome) => outcome.oldGenerationMb)).toEqual([WORKER_OLD_GENERATION_MB, WORKER_OLD_GENERATION_MB]);
    expect((await limitsOfWorkers({})).every((outcome) => outcome.oldGenerationMb !== WORKER_OLD_GENERATION_MB)).toBe(true);
  });
});
