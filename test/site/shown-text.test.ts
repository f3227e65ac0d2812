// The helpers a tool card renders with: an edit as a diff, terminal output's
// colours as classes (the pages' policy allows no inline style).

import { describe, expect, it } from 'vitest';
import { editDiff, firstLine, terminalRuns } from '../../src/site/data/shown-text.ts';

describe('what a tool card shows', () => {
  it('shows an edit as the lines it removes, keeps and adds', () => {
    expect(editDiff('a\nb\nc\n', 'a\nB\nc\n')).toEqual([
      { sign: ' ', text: 'a' },
      { sign: '-', text: 'b' },
      { sign: '+', text: 'B' },
      { sign: ' ', text: 'c' },
    ]);
    expect(editDiff('', 'new')).toEqual([{ sign: '+', text: 'new' }]);
  });

  it('turns the sixteen terminal colours into classes and drops every other escape', () => {
    expect(terminalRuns('plain')).toEqual([{ text: 'plain', classes: '' }]);
    expect(terminalRuns('ok \u001b[1;32mPASS\u001b[0m \u001b[38;5;200mpink\u001b[0m\u001b[2K')).toEqual([
      { text: 'ok ', classes: '' },
      { text: 'PASS', classes: 'ansi-green-fg ansi-bold' },
      { text: ' ', classes: '' },
      { text: 'pink', classes: '' },
    ]);
  });

  it('gives a fold the first line of what it holds', () => {
    expect(firstLine('\n  first\nsecond')).toBe('first');
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});
