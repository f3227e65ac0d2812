// The offline search index of one conversation: an entry for every step
// that shows text (a prompt, a reply, thinking, a tool's input and output),
// holding all of that text as the page shows it, white space made single
// spaces, and the page and anchor of the step.
//
// The entries are written as they are made, step after step, into one
// classic script per conversation (public/search.js loads them one at a
// time). A step's parts are read through the conversation's rows, which
// read them again from the bundle for a conversation too large to hold
// (rows.ts): what is held at once is one step's text, not the
// conversation's. A text that an earlier step of the conversation gave in
// full (a file read twice, the same output again) is written once and
// named by that step's number afterwards; only a digest of each text is
// kept for that.

import crypto from 'node:crypto';
import fs from 'node:fs';
import type { BundleConversation } from './bundle.ts';
import type { ConversationFacts } from './facts.ts';
import { partsOfStep } from './row-outline.ts';
import { stepsOfTalk, type ConversationStructure } from './streams.ts';
import type { PartView, StepView } from './views.ts';

/** A text this short is written again rather than looked up: its digest would weigh as much. */
const SHORTEST_SHARED = 64;

/** How much of the script is gathered before it is written out. */
const WRITE_CHUNK = 1 << 20;

/**
 * What a conversation's search script hands to window.SESSIONIZER_SEARCH.push:
 * `t` its title, `p` its project, `u` its page files, `d` when it started
 * (absent when nothing in it has a time), and `s` its steps, each [page
 * (index into `u`), anchor, label, text or the index of the earlier step
 * whose text it is, and, when the step has a time, its seconds after `d`].
 */
export interface SearchScriptData {
  readonly t: string;
  readonly p: string;
  readonly u: string[];
  readonly d?: string;
  readonly s: ([number, string, string, string | number] | [number, string, string, string | number, number])[];
}

/** The words a step's kind is shown by on a search result: never an internal term. */
export function stepLabel(step: Pick<StepView, 'kind' | 'toolName'>): string {
  switch (step.kind) {
    case 'message.external':
      return 'prompt';
    case 'message.assistant':
      return 'reply';
    case 'message.synthetic':
      return 'message from the runtime';
    case 'thinking':
      return 'thinking';
    case 'tool':
      return step.toolName ?? 'tool';
    case 'agent.call':
      return `subagent${step.toolName ? ` (${step.toolName})` : ''}`;
    case 'context.injection':
      return 'context';
    case 'control.command':
      return 'command';
    case 'epoch.summary':
      return 'compaction summary';
    case 'runtime.notification':
      return 'notification';
    case 'error.api':
      return 'API error';
    default:
      return 'step';
  }
}

/** The text a step shows, all of it, white space made single spaces (or, `asWritten`, as it was written); with `textOnly`, its text parts only, and with `taken`, only the parts whose text it takes. */
export function stepText(step: StepView, conversation: BundleConversation, options: { textOnly?: boolean; taken?: (text: string, view: PartView) => boolean; asWritten?: boolean } = {}): string {
  const texts: string[] = [];
  // As written, each piece keeps its lines, for a reader of the markdown a prompt is written in.
  const between = options.asWritten ? '\n\n' : ' ';
  for (const part of partsOfStep(step.kind, step.id, step.evidence, (ref) => conversation.rows.partsOf(ref))) {
    if (options.textOnly && part.k !== 'text') continue;
    const { segments } = part.view;
    const text = segments.length === 1 ? segments[0]!.text : segments.map((segment) => segment.text).join(between);
    if (options.taken?.(text, part.view) ?? true) texts.push(text);
  }
  return options.asWritten ? texts.join(between) : singleSpaced(texts.join(between));
}

/** `text` with each run of white space made one space, and none at either end. */
export function singleSpaced(text: string): string {
  return text.replace(SPACING, ' ').trim();
}

/**
 * Where singleSpaced puts a space: at a run of two or more white space
 * characters, or at one that is not a space. A single space, most of a
 * text's white space, is left where it is rather than replaced by itself.
 */
const SPACING = /\s\s+|[^\S ]/g;

/**
 * Writes the search script of a conversation to `file`: every step of every
 * stream that is on one of its pages (`pageOfTalk`), in page order, a child
 * stream's steps labelled by its name in `subagents` (site.ts,
 * subagentNames). Times are seconds after the conversation's start, or
 * after the first step's time when it has no start: a few digits a step.
 */
export function writeSearchScript(file: string, conversation: BundleConversation, structure: ConversationStructure, pageOfTalk: ReadonlyMap<string, string>, facts: ConversationFacts, subagents: ReadonlyMap<string, string>): void {
  const pages: string[] = [];
  const pageNumber = new Map<string, number>();
  const numberOf = (page: string): number => pageNumber.get(page) ?? (pageNumber.set(page, pages.push(page) - 1), pages.length - 1);
  const descriptor = fs.openSync(file, 'w');
  try {
    let pending = `(window.SESSIONIZER_SEARCH = window.SESSIONIZER_SEARCH || []).push({"t":${scriptJson(facts.title)},"p":${scriptJson(facts.project?.path ?? '')},"s":[`;
    const flush = (): void => {
      fs.writeSync(descriptor, pending);
      pending = '';
    };
    const seen = new Map<string, number>();
    let count = 0;
    let start = facts.from === undefined ? undefined : Date.parse(facts.from);
    const secondsOf = (time: string | undefined): string => {
      const at = time === undefined ? NaN : Date.parse(time);
      if (Number.isNaN(at)) return '';
      if (start === undefined || Number.isNaN(start)) start = at;
      return `,${Math.round((at - start) / 1000)}`;
    };
    // A step with no time of its own (a reply within its provider call) takes that of the step it is in.
    const add = (step: StepView, page: number, where: string, within?: string): void => {
      const time = step.time ?? within;
      const text = stepText(step, conversation);
      if (text !== '') {
        const digest = text.length >= SHORTEST_SHARED ? crypto.hash('sha1', text, 'base64') : undefined;
        const earlier = digest === undefined ? undefined : seen.get(digest);
        if (digest !== undefined && earlier === undefined) seen.set(digest, count);
        pending += `${count === 0 ? '' : ',\n'}[${page},${scriptJson(step.anchor)},${scriptJson(`${where}${stepLabel(step)}`)},${earlier ?? scriptJson(text)}${secondsOf(time)}]`;
        count++;
        if (pending.length >= WRITE_CHUNK) flush();
      }
      for (const child of step.children) add(child, page, where, time);
    };
    for (const stream of structure.streams) {
      const where = stream.child ? `${subagents.get(stream.id) ?? `subagent ${stream.name}`} · ` : '';
      for (const epoch of stream.epochs) {
        const first = stream.talks.find((talk) => talk.epoch === epoch.id);
        const page = first ? pageOfTalk.get(first.id) : undefined;
        if (page !== undefined) for (const step of epoch.steps) add(step, numberOf(page), where);
      }
      for (const talk of stream.talks) {
        const page = pageOfTalk.get(talk.id);
        if (page === undefined) continue;
        for (const step of stepsOfTalk(talk)) add(step, numberOf(page), `${where}prompt ${talk.number} · `);
      }
    }
    pending += `],"u":${scriptJson(pages)}${start === undefined || Number.isNaN(start) ? '' : `,"d":${scriptJson(new Date(start).toISOString())}`}});\n`;
    flush();
  } finally {
    fs.closeSync(descriptor);
  }
}

/** JSON that no text from a transcript can end the script it is in with: `<` and the two JavaScript line separators escaped. */
function scriptJson(value: unknown): string {
  const json = JSON.stringify(value);
  return SCRIPT_ENDING.test(json) ? json.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;
}

/** What scriptJson escapes: looked for once, as most texts hold none of it. */
const SCRIPT_ENDING = /[<\u2028\u2029]/;
