// Helpers a component renders with: numbers and sizes in words, a diff of
// an edit, and terminal colours as classes. Plain functions, no markup.

import Anser from 'anser';
import { diffLines } from 'diff';
import type { Usage } from '../../session-data/format.ts';
import { jsonValueOf, OPENING_TAG, sentenceCase } from './parts.ts';

export { bytes } from './sizes.ts';

export function count(value: number): string {
  return value.toLocaleString('en');
}

/** A count with its noun, singular for one: `1 talk`, `2 talks`. */
export function counted(value: number, one: string, many: string): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

/** A count of tokens in a few characters: 950, 12.3k, 4.5M. */
export function compact(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(count < 10_000_000 ? 1 : 0)}M`;
}

/**
 * What a provider call, or every call of a conversation, used, as a reader
 * is told it: tokens in (the prompt, cached or not) and out, in a few
 * characters, with every count in full for a tooltip. Undefined when nothing
 * is known.
 */
export function tokensShown(usage: Usage | undefined): { shown: string; detail: string } | undefined {
  if (usage === undefined || (usage.input === undefined && usage.output === undefined)) return undefined;
  const read = usage.input === undefined ? undefined : usage.input + (usage.cache_read ?? 0) + (usage.cache_write ?? 0);
  const shown = [read !== undefined ? `${compact(read)} tokens in` : undefined, usage.output !== undefined ? `${compact(usage.output)} out` : undefined].filter(Boolean).join(', ');
  const known = (value: number | undefined): string => (value === undefined ? 'not recorded' : count(value));
  const detail = `input ${known(usage.input)}, cache read ${known(usage.cache_read)}, cache write ${known(usage.cache_write)}, output ${known(usage.output)}`;
  return { shown, detail };
}

/**
 * The line a fold of what the runtime added is summed up by, readable: a
 * wrapping tag as words (`<system-reminder>` reads "System reminder:") with
 * its text, or its `<summary>` when it has one; a JSON object by its type, or
 * its first few fields; terminal colour codes dropped. `context` is the tag
 * in words when the part already took it off (parts.ts).
 */
export function runtimeLine(text: string, context?: string): string {
  const plain = text.includes(ESCAPE) ? Anser.ansiToText(text).trim() : text.trim();
  const tag = context === undefined ? OPENING_TAG.exec(plain) : null;
  const label = context ?? (tag ? sentenceCase(tag[1]!) : undefined);
  if (label !== undefined) {
    const inner = tag ? plain.slice(tag[0].length) : plain;
    const told = /<summary>([\s\S]*?)<\/summary>/.exec(inner)?.[1] ?? inner.replace(/<\/?[a-z][a-z0-9_-]*>/gi, ' ');
    return firstLine(`${label}: ${told.replace(/\s+/g, ' ').trim()}`);
  }
  const value = jsonValueOf(plain)?.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    if (typeof fields.type === 'string') return sentenceCase(fields.type);
    const shown = Object.entries(fields)
      .filter(([, field]) => !saysNothing(field))
      .slice(0, 3)
      .map(([key, field]) => (typeof field === 'object' && field !== null && !Array.isArray(field) ? key : `${key}: ${fieldWords(field)}`));
    return firstLine(shown.join(' · '));
  }
  return firstLine(plain);
}

/** A field that adds nothing to a summary line: empty, false or null. */
function saysNothing(field: unknown): boolean {
  return field === null || field === false || field === '' || (Array.isArray(field) && field.length === 0) || (typeof field === 'object' && field !== null && Object.keys(field).length === 0);
}

/** A field's value in a few words: a list of one entry of one text is that text, a longer list its count. */
function fieldWords(field: unknown): string {
  if (!Array.isArray(field)) return String(field);
  const only = field.length === 1 ? field[0] : undefined;
  const texts = typeof only === 'object' && only !== null ? Object.values(only) : [only];
  if (texts.length === 1 && typeof texts[0] === 'string') return texts[0];
  return counted(field.length, 'entry', 'entries');
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
