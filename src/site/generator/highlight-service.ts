// One highlighter for every renderer child of a site step that has more
// than one (a child alone highlights its own pages). Each child asks
// for a block's HTML over its IPC channel; the site step (site.ts) passes
// the question on to a highlighting process of its own (highlight.mjs) and
// the answer back. A language's first block costs its grammars' loading and
// the compiling of their expressions, in whichever process highlights it:
// with a highlighter in each child, every child paid that for every language
// it met, and on the real corpus the two children met mostly the same ones
// (bench/results/measurements-behind-choices.md). The highlighting process
// alone reads and adds to the highlight cache.

import type { Highlighter } from './highlight.ts';
import type { CodeHighlighter } from '../models/site.ts';
import type { Child } from './child.ts';

/** A renderer child's question: the HTML of `code` in `language`. */
interface Question {
  readonly highlight: { readonly id: number; readonly language: string; readonly code: string };
}

/** The answer to a question, sent back to the child that asked it; `html` is absent when the code stays plain. */
interface Answer {
  readonly highlighted: { readonly id: number; readonly html?: string };
}

/** A question as the highlighting process gets it: with the renderer child that asked it. */
interface Passed {
  readonly from: number;
  readonly id: number;
  readonly language: string;
  readonly code: string;
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

const isQuestion = (message: unknown): message is Question => typeof message === 'object' && message !== null && 'highlight' in message;
const isAnswer = (message: unknown): message is Answer => typeof message === 'object' && message !== null && 'highlighted' in message;
const isDone = (message: unknown): message is Done => typeof message === 'object' && message !== null && 'done' in message;

/**
 * A renderer child's highlighter: each block is asked of the highlighting
 * process through `channel` (this process's own, by default). `close` stops listening, so
 * that the channel no longer keeps the child running.
 */
export function highlightingAsked(channel: Channel = process): CodeHighlighter & { close(): void } {
  const waiting = new Map<number, (html: string | undefined) => void>();
  let next = 0;
  const listener = (message: unknown): void => {
    if (!isAnswer(message)) return;
    const answered = waiting.get(message.highlighted.id);
    waiting.delete(message.highlighted.id);
    answered?.(message.highlighted.html);
  };
  channel.on('message', listener);
  return {
    ensure(language, code) {
      if (channel.send === undefined) throw new Error('a renderer child highlights through its IPC channel, and this process has none');
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        channel.send!({ highlight: { id, language, code } } satisfies Question);
      });
    },
    close() {
      channel.removeListener('message', listener);
    },
  };
}

/**
 * The highlighting process's work: answers each of the `questions` that
 * come, in turn, with `highlighter`, until the site step says it is done;
 * then closes the highlighter, which has written every block to the cache.
 * The questions are every message the process is sent after its work
 * (highlight.mjs), kept from the moment it starts, so that none that comes
 * while the highlighter is made is lost.
 */
export async function serveHighlighting(highlighter: Highlighter, questions: AsyncIterator<unknown>, answer: (message: unknown) => void): Promise<void> {
  for (;;) {
    const { value, done } = await questions.next();
    if (done || isDone(value)) break;
    const { from, id, language, code } = value as Passed;
    const html = await highlighter.ensure(language, code);
    answer({ from, id, ...(html !== undefined ? { html } : {}) });
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
      if (isQuestion(message)) highlighting.send({ from, ...message.highlight } satisfies Passed);
    }),
  );
  highlighting.onMessage((message) => {
    const { from, id, html } = message as Partial<Passed> & { html?: string };
    if (from === undefined || id === undefined) return;
    renderers[from]?.send({ highlighted: { id, ...(html !== undefined ? { html } : {}) } } satisfies Answer);
  });
}

/** Says to the highlighting process that every renderer child is done. */
export function highlightingDone(highlighting: Child): void {
  highlighting.send({ done: true } satisfies Done);
}
