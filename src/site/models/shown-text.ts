// Helpers a component renders with: numbers and sizes in words, a diff of
// an edit, and terminal colours as classes. Plain functions, no markup.

import Anser from 'anser';
import { diffLines } from 'diff';
import type { Usage } from '../../session-data/format.ts';
import type { Notice } from '../../model/notices.ts';
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
  // Rounded half up on the count itself: toFixed on the quotient rounds 7,850 to "7.8k", as 7.85 is stored a little under.
  const rounded = (unit: number, digits: number): string => (Math.round(count / (unit / 10 ** digits)) / 10 ** digits).toFixed(digits);
  if (count < 1_000_000) return `${rounded(1000, count < 10_000 ? 1 : 0)}k`;
  return `${rounded(1_000_000, count < 10_000_000 ? 1 : 0)}M`;
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

/** A duration as a reader says it: `92 ms`, `1.2 s`, `48 s`, `1 min 32 s`, `2 h 5 min`. */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 9950) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min${seconds % 60 > 0 ? ` ${seconds % 60} s` : ''}`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h${minutes % 60 > 0 ? ` ${minutes % 60} min` : ''}`;
}

/**
 * A runtime notice (model/notices.ts) in plain words: `short`, what it is
 * ("Hook · PostToolUse", "Turn took 1 min 32 s", "Recap"), which a line of
 * several notices counts by; and `full`, with what it was about and how it
 * went ("Hook · PostToolUse · 92 ms", "File changed · src/app.py").
 */
export function noticeWords(notice: Notice): { short: string; full: string } {
  const took = notice.ms !== undefined ? shortDuration(notice.ms) : undefined;
  const join = (...pieces: (string | false | undefined)[]): string => pieces.filter((piece): piece is string => typeof piece === 'string' && piece !== '').join(' · ');
  switch (notice.kind) {
    case 'hook': {
      const short = join('Hook', notice.name);
      return { short, full: join(short, notice.count !== undefined && notice.count > 1 && `${notice.count} hooks`, took, notice.failed && 'failed') };
    }
    case 'turn': {
      const short = took !== undefined ? `Turn took ${took}` : 'Turn finished';
      return { short, full: short };
    }
    case 'compaction':
      return { short: 'Compaction', full: compactionWords(notice) };
    case 'recap':
      return { short: 'Recap', full: 'Recap' };
    case 'reminder': {
      const short = join('Reminder', notice.name);
      return { short, full: join(short, notice.count !== undefined && counted(notice.count, 'item', 'items')) };
    }
    case 'file':
      return { short: 'File', full: join('File', notice.name) };
    case 'file_change':
      return { short: 'File changed', full: join('File changed', notice.name) };
    case 'request_error': {
      const attempt = notice.attempt !== undefined ? `try ${notice.attempt}${notice.attempts !== undefined ? ` of ${notice.attempts}` : ''}` : undefined;
      return { short: 'Request failed', full: join('Request failed', notice.name, attempt, took !== undefined && `next in ${took}`) };
    }
    case 'context': {
      const short = notice.name ?? 'Context';
      return { short, full: join(short, notice.count !== undefined && `${count(notice.count)} added`) };
    }
  }
}

/**
 * What a compaction did, as its divider says it: "Compacted automatically:
 * 173k → 7.9k tokens", "Compacted by /compact: 50k tokens before";
 * "Conversation compacted" when the record says neither.
 */
export function compactionWords(notice: Notice | undefined): string {
  const how = notice?.trigger === 'manual' ? 'Compacted by /compact' : notice?.trigger === 'automatic' ? 'Compacted automatically' : 'Conversation compacted';
  const before = notice?.tokens_before;
  const after = notice?.tokens_after;
  if (before !== undefined && after !== undefined) return `${how}: ${compact(before)} → ${compact(after)} tokens`;
  if (before !== undefined) return `${how}: ${compact(before)} tokens before`;
  return how;
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
  const embedded = embeddedJson(plain);
  if (embedded !== undefined) {
    const told = messageIn(embedded.value) ?? (typeof embedded.value.type === 'string' ? sentenceCase(embedded.value.type) : undefined);
    return firstLine([embedded.before, told].filter((piece) => piece !== undefined && piece !== '').join(' · '));
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

/**
 * A text of a line of words and then one JSON object, as an error a client
 * reports ("API Error: 400 {…}"): the words, and the object; undefined for
 * any other text.
 */
export function embeddedJson(text: string): { before: string; value: Record<string, unknown> } | undefined {
  const start = text.indexOf('{');
  if (start <= 0 || text.slice(0, start).includes('\n')) return undefined;
  const value = jsonValueOf(text.slice(start))?.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { before: text.slice(0, start).trim(), value: value as Record<string, unknown> } : undefined;
}

/** The first `message` text in an object, looked for a few levels down: what an error object says in words. */
function messageIn(value: unknown, depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 3) return undefined;
  const fields = value as Record<string, unknown>;
  if (typeof fields.message === 'string' && fields.message !== '') return fields.message;
  for (const field of Object.values(fields)) {
    const found = messageIn(field, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
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
