// A `.sd` part as a page shows it: its content state and size always, its
// content cut to a size a page can carry, and code marked for highlighting.

import type { MediaPart, Part } from '../../session-data/format.ts';
import { imageOfPart } from './images.ts';
import { bytes } from './sizes.ts';
import type { ImageView, PartView, Segment } from './views.ts';
import { describeToolUse } from '../../adapters/built-in.ts';
import type { ToolDescription } from '../../model/tools.ts';
import { languageOfPath } from './languages.ts';

/**
 * The most of one part a page shows. The largest real tool outputs run to
 * megabytes; the whole content stays one link away in the landed record, and
 * one output must not push a page past its budget by itself.
 */
export const SHOWN_LIMIT = 32 * 1024;
/** Content longer than this starts folded in a `<details>`. */
const LONG_BYTES = 1500;
const LONG_LINES = 24;

const FENCE = /^```([A-Za-z0-9_+#.-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

/** A part as a page shows it; `callId` is the call a result is shown under, if it is (underItsCall). */
export function partView(part: Part, callId?: string): PartView {
  return callId === undefined ? viewOf(part) : underItsCall(viewOf(part));
}

/** A part's view as it is shown under the call it answers: a result then needs no label naming the call. */
export function underItsCall(shown: PartView): PartView {
  if (shown.kind !== 'result' || shown.label === undefined) return shown;
  const { label: _label, ...rest } = shown;
  return rest;
}

function viewOf(part: Part): PartView {
  switch (part.k) {
    case 'text':
    case 'reasoning': {
      const wrapped = RUNTIME_WRAPPED.exec(part.text);
      if (wrapped) return { ...view(part, wrapped[2]!.trim(), undefined, plain), context: sentenceCase(wrapped[1]!) };
      // Text that is one JSON value (what a hook or the runtime reports) is shown as JSON, laid out, not as a paragraph of braces;
      // cut short to fit a page, it no longer parses, and is shown as it is.
      const json = jsonValueOf(part.text);
      return view(part, part.text, undefined, json === undefined ? prose : (shown) => [{ text: shown === part.text ? JSON.stringify(json.value, null, 2) : shown, language: 'json' }]);
    }
    case 'call': {
      const tool = describeToolUse(part.name, part.input);
      const restText = json(tool.rest);
      const asTree = restShownAsTree(tool, restText);
      return { ...view(part, callText(tool, restText), part.name, callSegments(tool, asTree)), tool: shownDescription(tool, asTree) };
    }
    case 'result': {
      const structured = jsonValueOf(part.text) !== undefined;
      return { ...view(part, part.text, `result of ${part.of}`, structured ? code('json') : plain), ...(part.failed !== undefined ? { failed: part.failed } : {}) };
    }
    case 'media':
      return { ...view(part, '', part.media_type, plain), ...mediaShown(part) };
    case 'data':
      return view(part, json(part.data), undefined, code('json'));
    case 'unknown':
      return view(part, part.encoding === 'base64' ? `(base64) ${part.raw}` : part.raw, part.why, plain);
  }
}

/** A medium as a page shows it: an image file of the site, or why it is not shown (images.ts, imageOfPart). */
function mediaShown(part: MediaPart): { image: ImageView } | { notShown: string } {
  const image = imageOfPart(part);
  if (!image.shown) return { notShown: image.why };
  const where = part.of !== undefined ? 'Image returned by the tool' : 'Image pasted in the prompt';
  return { image: { file: image.file, ...(image.width !== undefined ? { width: image.width, height: image.height! } : {}), alt: `${where}, ${image.type}, ${bytes(part.bytes)}` } };
}

function view(part: Part, held: string, label: string | undefined, split: (text: string) => Segment[]): PartView {
  const heldBytes = Buffer.byteLength(held);
  const shown = heldBytes > SHOWN_LIMIT ? cutAtBytes(held, SHOWN_LIMIT) : held;
  return {
    kind: part.k,
    state: part.state,
    bytes: part.bytes,
    ...(part.removed !== undefined ? { removed: part.removed } : {}),
    heldBytes,
    shownBytes: shown === held ? heldBytes : Buffer.byteLength(shown),
    segments: shown.length === 0 ? [] : split(shown),
    ...(label !== undefined ? { label } : {}),
    long: heldBytes > LONG_BYTES || moreLinesThan(shown, LONG_LINES),
  };
}

// Counted only as far as the answer: splitting a text into its lines to
// count them made a string of each line of every part of a conversation
// (bench/results/measurements-behind-choices.md).
function moreLinesThan(text: string, most: number): boolean {
  if (text.length === 0) return false;
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) if (++lines > most) return true;
  return false;
}

const plain = (text: string): Segment[] => [{ text }];
const code =
  (language: string) =>
  (text: string): Segment[] => [{ text, language }];

/** Prose with its fenced code blocks marked with their language, for highlighting. */
export function prose(text: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const match of text.matchAll(FENCE)) {
    if (match.index > at) segments.push({ text: text.slice(at, match.index) });
    segments.push({ text: match[2]!.replace(/\n$/, ''), language: match[1] || 'text' });
    at = match.index + match[0].length;
  }
  if (at < text.length) segments.push({ text: text.slice(at) });
  return segments;
}

/**
 * The text of a call as a page shows it and the search index takes it: what
 * its tool works on first (a command, a file's content, a diff's two sides,
 * a prompt), then the input the description did not name, as JSON (`restText`).
 */
function callText(tool: ToolDescription, restText: string): string {
  const pieces = [tool.command, tool.content, ...(tool.edits ?? []).flatMap((edit) => [edit.before, edit.after]), tool.pattern, tool.scope, ...(tool.todos ?? []).map((todo) => todo.text), tool.description, tool.prompt, tool.address, tool.query];
  return [...pieces.filter((piece): piece is string => piece !== undefined), restText].filter((piece) => piece.length > 0).join('\n');
}

/**
 * The pieces of `shown` (callText, cut to the page's limit) a call shows as
 * code: the command of a shell call, the content of a file written in its
 * file's language, the input of any other tool as JSON. The rest of a call
 * is rendered from its description (components/Tools.tsx).
 */
function callSegments(tool: ToolDescription, restAsTree: boolean): (shown: string) => Segment[] {
  return (shown) => {
    // The command and the content come first in the call's text (callText).
    if (tool.kind === 'shell') return [{ text: shown.slice(0, tool.command?.length ?? 0), language: 'bash' }];
    if (tool.kind === 'file_write') return [{ text: shown.slice(0, tool.content?.length ?? 0), language: languageOfPath(tool.path) }];
    // An MCP call's input is shown as a tree of its description's `rest` (restShownAsTree) when it fits, else as JSON.
    if ((tool.kind === 'mcp' && !restAsTree) || (tool.kind === 'other' && tool.prompt === undefined)) return [{ text: shown, language: 'json' }];
    return [{ text: shown }];
  };
}

/** The most of a call's input not shown as code that a page shows, in one line or in one rest of input. */
const SUBJECT_LIMIT = 300;
const REST_LIMIT = 4 * 1024;

/**
 * A description as a page holds it: what its segments show (a command, a
 * file's content) left out, and every other text cut, so that a call stays
 * within the page's limit for one part as its segments do. Its `rest` is
 * kept when it is shown as names and values (restShownAsTree).
 */
function shownDescription(tool: ToolDescription, restAsTree: boolean): ToolDescription {
  const { content: _content, command: _command, rest, subject, edits, prompt, todos, ...kept } = tool;
  let left = SHOWN_LIMIT;
  const cut = (text: string): string => {
    const shown = cutAtBytes(text, Math.max(left, 0));
    left -= Buffer.byteLength(shown);
    return shown;
  };
  return {
    ...kept,
    ...(subject !== undefined ? { subject: subject.length > SUBJECT_LIMIT ? `${subject.slice(0, SUBJECT_LIMIT)}…` : subject } : {}),
    ...(prompt !== undefined ? { prompt: cut(prompt) } : {}),
    ...(edits !== undefined ? { edits: edits.map((edit) => ({ before: cut(edit.before), after: cut(edit.after) })) } : {}),
    ...(todos !== undefined ? { todos: todos.slice(0, 200) } : {}),
    ...(restAsTree ? { rest } : {}),
  };
}

/**
 * Whether the input a description did not name (`restText`, its JSON) is
 * shown as names and values (components/Tools.tsx, Rest): an MCP call's
 * within a part's limit, another's within REST_LIMIT; never an unknown
 * tool's, whose whole input is its JSON segment, nor an MCP call's too
 * large for a tree, which is shown so too.
 */
function restShownAsTree(tool: ToolDescription, restText: string): boolean {
  if (tool.rest === undefined || (tool.kind === 'other' && tool.prompt === undefined)) return false;
  return tool.kind === 'mcp' ? Buffer.byteLength(restText) <= SHOWN_LIMIT : restText.length <= REST_LIMIT;
}

function json(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/**
 * A text part that is all one element of a tag a runtime writes (its name
 * joins words with `-` or `_`, as `ide_opened_file` and `system-reminder`
 * do): context the runtime added, not words a person typed.
 */
const RUNTIME_WRAPPED = /^\s*<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)>([\s\S]*)<\/\1>\s*$/i;

/** A machine name as words: `task-notification` and `ide_opened_file` read "Task notification", "IDE opened file". */
export function sentenceCase(name: string): string {
  const words = name.replace(/[-_]+/g, ' ').trim().replace(/\b(ide|mcp|api|url|id)\b/gi, (word) => word.toUpperCase());
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/** Text that opens with a tag, as context a runtime wraps and adds to a prompt does; the tag's name is its first group. */
export const OPENING_TAG = /^\s*<([a-z][a-z0-9_-]*)>/i;

/** The value of a text that is one JSON object or array, parsed once for whoever shows it or sums it up; undefined for any other text. */
export function jsonValueOf(text: string): { readonly value: unknown } | undefined {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return undefined;
  }
}

/**
 * The longest prefix of `text` within `limit` UTF-8 bytes, never splitting a
 * character. Only its first `limit` code units are encoded: each takes at
 * least a byte, so the cut is among them, and a surrogate left alone at
 * their end encodes to three bytes that start past every byte it keeps.
 */
export function cutAtBytes(text: string, limit: number): string {
  const head = text.length > limit ? text.slice(0, limit) : text;
  const bytes = Buffer.from(head);
  if (bytes.length <= limit) return head;
  let end = limit;
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
