// Helpers a component renders with: numbers and sizes in words, a diff of
// an edit, and terminal colours as classes. Plain functions, no markup.

import Anser from 'anser';
import { diffLines } from 'diff';

export { bytes } from './sizes.ts';

export function count(value: number): string {
  return value.toLocaleString('en');
}

/** The first line of a text, for a fold's summary: a fold never hides it. */
export function firstLine(text: string, most = 160): string {
  const line = text.trimStart().split('\n', 1)[0] ?? '';
  return line.length > most ? `${line.slice(0, most)}…` : line;
}

export function lineCount(text: string): number {
  let lines = text.length === 0 ? 0 : 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

export interface DiffLine {
  readonly sign: '+' | '-' | ' ';
  readonly text: string;
}

/** Above this, the two sides are shown one after the other rather than diffed: a line diff's time grows with the product of their sizes. */
const DIFF_LIMIT = 64 * 1024;

/** An edit as the lines it removes, keeps and adds, in order. */
export function editDiff(before: string, after: string): DiffLine[] {
  const lines = (sign: DiffLine['sign'], text: string): DiffLine[] => (text.length === 0 ? [] : text.replace(/\n$/, '').split('\n').map((line) => ({ sign, text: line })));
  if (before.length + after.length > DIFF_LIMIT) return [...lines('-', before), ...lines('+', after)];
  return diffLines(before, after).flatMap((change) => lines(change.added ? '+' : change.removed ? '-' : ' ', change.value));
}

export interface ColouredRun {
  readonly text: string;
  /** Classes from the sixteen terminal colours and bold; none for plain text. */
  readonly classes: string;
}

const ESCAPE = '\u001b[';
const BASIC = /^ansi-(bright-)?(black|red|green|yellow|blue|magenta|cyan|white)$/;

/**
 * Terminal output as runs of text with classes for its colours (the pages'
 * policy allows no inline style); colours past the sixteen basic ones, and
 * every other escape, are dropped.
 */
export function terminalRuns(text: string): ColouredRun[] {
  if (!text.includes(ESCAPE)) return [{ text, classes: '' }];
  return Anser.ansiToJson(text, { use_classes: true, remove_empty: true }).map((entry) => {
    const classes = [entry.fg && BASIC.test(entry.fg) ? `${entry.fg}-fg` : '', entry.bg && BASIC.test(entry.bg) ? `${entry.bg}-bg` : '', entry.decorations.includes('bold') ? 'ansi-bold' : ''].filter(Boolean).join(' ');
    return { text: entry.content, classes };
  });
}
