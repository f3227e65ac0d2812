// Outcomes that threads finish in any order, passed on in the order asked
// for, each as soon as every one before it has come.

import { describe, expect, it } from 'vitest';
import { inTheOrderOf } from '../../src/cores/work-on-cores.ts';

describe('outcomes in the order asked for', () => {
  it('holds back an outcome until every one before it has come, then passes on all that are ready', () => {
    const passed: string[] = [];
    const report = inTheOrderOf(['a', 'b', 'c', 'd'], (outcome: { key: string }) => outcome.key, (outcome) => passed.push(outcome.key));
    report({ key: 'c' });
    expect(passed).toEqual([]);
    report({ key: 'a' });
    expect(passed).toEqual(['a']);
    report({ key: 'd' });
    expect(passed).toEqual(['a']);
    report({ key: 'b' });
    expect(passed).toEqual(['a', 'b', 'c', 'd']);
  });
});
