// One highlighter for every renderer child of a site step that has more
// than one (a child alone highlights its own pages). Each child asks
// for its blocks' HTML over its IPC channel; the site step (site.ts) passes
// the questions on to a highlighting process of its own (highlight.mjs) and
// the answers back. A language's first block costs its grammars' loading and
// the compiling of their expressions, in whichever process highlights it:
// with a highlighter in each child, every child paid that for every language
// it met, and on the real corpus the two children met mostly the same ones
// (bench/results/measurements-behind-choices.md). The highlighting process
// alone reads and adds to the highlight cache.
//
// The questions a child asks at once (every block of the talks it asks
// for in one turn) go as one message, and their answers come back as one:
// sending a message over an IPC channel took a child 0.15-0.2 ms on this
// kind of machine, and a message per block a quarter to a third of a second
// of each child of the generated 100 MB corpus
// (bench/results/measurements-behind-choices.md).

import type { Highlighter } from './highlight.ts';
import type { CodeHighlighter } from '../models/site.ts';
import type { Child } from './child.ts';

/** A question: the HTML of `code` in `language`. */
interface Question {
  readonly id: number;
  readonly language: string;
  readonly code: string;
}

/** The answer to a question; `html` is absent when the code stays plain. */
interface Answer {
  readonly id: number;
  readonly html?: string;
}

/** What a renderer child sends: the questions it asked at once. */
interface Asked {
  readonly highlight: readonly Question[];
}

/** What a renderer child is sent: the answers to the questions it asked at once. */
interface Answered {
  readonly highlighted: readonly Answer[];
}

/** Questions and their answers as the highlighting process gets and sends them: with the renderer child that asked them. */
interface Passed<Item> {
  readonly from: number;
  readonly items: readonly Item[];
}

/** What the site step says to the highlighting process once every renderer child is done. */
interface Done {
  readonly done: true;
}

/** The IPC channel of this process to the one that started it. */
interface Channel {
  send?(message: unknown): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  removeListener(event: 'message', listener: (message: unknown) => void): unknown;
}

/** Whether a message is of the kind that carries `key`. */
const carrying =
  <Message>(key: string) =>
  (message: unknown): message is Message =>
    typeof message === 'object' && message !== null && key in message;
const isAsked = carrying<Asked>('highlight');
const isAnswered = carrying<Answered>('highlighted');
const isDone = carrying<Done>('done');

/**
 * A renderer child's highlighter: each block is asked of the highlighting
 * process through `channel` (this process's own, by default), with the
 * others asked in the same turn of the event loop, in one message. `close`
 * stops listening, so that the channel no longer keeps the child running.
 */
export function highlightingAsked(channel: Channel = process): CodeHighlighter & { close(): void } {
  const waiting = new Map<number, (html: string | undefined) => void>();
  let next = 0;
  let unsent: Question[] = [];
  const send = (): void => {
    const questions = unsent;
    unsent = [];
    channel.send!({ highlight: questions } satisfies Asked);
  };
  const listener = (message: unknown): void => {
    if (!isAnswered(message)) return;
    for (const { id, html } of message.highlighted) {
      const answered = waiting.get(id);
      waiting.delete(id);
      answered?.(html);
    }
  };
  channel.on('message', listener);
  return {
    ensure(language, code) {
      if (channel.send === undefined) throw new Error('a renderer child highlights through its IPC channel, and this process has none');
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        if (unsent.length === 0) queueMicrotask(send);
        unsent.push({ id, language, code });
      });
    },
    close() {
      channel.removeListener('message', listener);
    },
  };
}

/**
 * The highlighting process's work: answers the questions of each message
 * that comes, in turn, with `highlighter`, in one message, until the site
 * step says it is done; then closes the highlighter, which has written every
 * block to the cache. The messages are every one the process is sent after
 * its work (highlight.mjs), kept from the moment it starts, so that none
 * that comes while the highlighter is made is lost.
 */
export async function serveHighlighting(highlighter: Highlighter, messages: AsyncIterator<unknown>, answer: (message: unknown) => void): Promise<void> {
  for (;;) {
    const { value, done } = await messages.next();
    if (done || isDone(value)) break;
    const { from, items } = value as Passed<Question>;
    const answers: Answer[] = [];
    for (const { id, language, code } of items) {
      const html = await highlighter.ensure(language, code);
      answers.push({ id, ...(html !== undefined ? { html } : {}) });
    }
    answer({ from, items: answers } satisfies Passed<Answer>);
  }
  highlighter.dispose();
}

/**
 * Passes each renderer child's questions to the highlighting process
 * `highlighting`, and its answers back to the child that asked.
 */
export function passQuestions(renderers: readonly Child[], highlighting: Child): void {
  renderers.forEach((renderer, from) =>
    renderer.onMessage((message) => {
      if (isAsked(message)) highlighting.send({ from, items: message.highlight } satisfies Passed<Question>);
    }),
  );
  highlighting.onMessage((message) => {
    const { from, items } = message as Partial<Passed<Answer>>;
    if (from === undefined || items === undefined) return;
    renderers[from]?.send({ highlighted: items } satisfies Answered);
  });
}

/** Says to the highlighting process that every renderer child is done. */
export function highlightingDone(highlighting: Child): void {
  highlighting.send({ done: true } satisfies Done);
}
