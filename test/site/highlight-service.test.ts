// The questions a renderer child asks of the highlighting process, and their
// answers (generator/highlight-service.ts): those asked at once travel as
// one message each way, and each answer reaches the block that asked it.

import { describe, expect, it } from 'vitest';
import { highlightingAsked, passQuestions, serveHighlighting } from '../../src/site/generator/highlight-service.ts';
import type { Child } from '../../src/site/generator/child.ts';
import type { Highlighter } from '../../src/site/generator/highlight.ts';

/** A channel that keeps what is sent on it, and gives its listeners what the test says came. */
function recordingChannel() {
  const sent: unknown[] = [];
  const listeners = new Set<(message: unknown) => void>();
  return {
    sent,
    channel: {
      send: (message: unknown) => sent.push(message),
      on: (_: 'message', listener: (message: unknown) => void) => listeners.add(listener),
      removeListener: (_: 'message', listener: (message: unknown) => void) => listeners.delete(listener),
    },
    arrive: (message: unknown) => {
      for (const listener of listeners) listener(message);
    },
  };
}

/** A highlighter that writes each block as its language and text, and leaves `plain` unhighlighted. */
function namingHighlighter(): Highlighter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    ensure: async (language, code) => {
      asked.push(`${language}:${code}`);
      return language === 'plain' ? undefined : `<${language}>${code}`;
    },
    warm: () => undefined,
    dispose: () => undefined,
  };
}

/** A child process as the site step sees it, which keeps what it is sent and says what the test says it sent. */
function fakeChild(pid: number) {
  const sent: unknown[] = [];
  const listeners: ((message: unknown) => void)[] = [];
  const child: Child = {
    pid,
    done: new Promise<number>(() => undefined),
    send: (message) => void sent.push(message),
    onMessage: (listener) => void listeners.push(listener),
    stop: () => undefined,
  };
  return { child, sent, says: (message: unknown) => listeners.forEach((listener) => listener(message)) };
}

async function* messagesOf(...messages: unknown[]): AsyncGenerator<unknown> {
  yield* messages;
}

describe('asking the highlighting process', () => {
  it('sends the blocks a child asks for in one turn as one message, and resolves each from one answer', async () => {
    const { sent, channel, arrive } = recordingChannel();
    const asking = highlightingAsked(channel);
    const answers = Promise.all([asking.ensure('ts', 'let a'), asking.ensure('plain', 'b'), asking.ensure('go', 'c')]);
    await Promise.resolve();
    expect(sent).toEqual([
      {
        highlight: [
          { id: 0, language: 'ts', code: 'let a' },
          { id: 1, language: 'plain', code: 'b' },
          { id: 2, language: 'go', code: 'c' },
        ],
      },
    ]);
    // Answered out of order, as one message.
    arrive({ highlighted: [{ id: 2, html: '<go>c' }, { id: 0, html: '<ts>let a' }, { id: 1 }] });
    expect(await answers).toEqual(['<ts>let a', undefined, '<go>c']);
    // Asked later: a message of its own.
    const later = asking.ensure('ts', 'd');
    await Promise.resolve();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ highlight: [{ id: 3, language: 'ts', code: 'd' }] });
    arrive({ highlighted: [{ id: 3, html: '<ts>d' }] });
    expect(await later).toBe('<ts>d');
    asking.close();
  });

  it('answers each message of questions with one message, to the child that asked, until told the children are done', async () => {
    const highlighter = namingHighlighter();
    const answered: unknown[] = [];
    await serveHighlighting(
      highlighter,
      messagesOf(
        { from: 1, items: [{ id: 0, language: 'ts', code: 'x' }, { id: 1, language: 'plain', code: 'y' }] },
        { from: 0, items: [{ id: 0, language: 'go', code: 'z' }] },
        { done: true },
        { from: 0, items: [{ id: 1, language: 'go', code: 'never' }] },
      ),
      (message) => answered.push(message),
    );
    expect(answered).toEqual([
      { from: 1, items: [{ id: 0, html: '<ts>x' }, { id: 1 }] },
      { from: 0, items: [{ id: 0, html: '<go>z' }] },
    ]);
    expect(highlighter.asked).toEqual(['ts:x', 'plain:y', 'go:z']);
  });

  it("passes each child's questions on with the child they came from, and each answer back to that child alone", () => {
    const lead = fakeChild(11);
    const helper = fakeChild(12);
    const highlighting = fakeChild(13);
    passQuestions([lead.child, helper.child], highlighting.child);
    // Both number their questions from 0.
    helper.says({ highlight: [{ id: 0, language: 'go', code: 'h' }] });
    lead.says({ highlight: [{ id: 0, language: 'ts', code: 'l' }] });
    lead.says({ peakResidentBytes: 1 });
    expect(highlighting.sent).toEqual([
      { from: 1, items: [{ id: 0, language: 'go', code: 'h' }] },
      { from: 0, items: [{ id: 0, language: 'ts', code: 'l' }] },
    ]);
    highlighting.says({ from: 0, items: [{ id: 0, html: '<ts>l' }] });
    highlighting.says({ from: 1, items: [{ id: 0 }] });
    expect(lead.sent).toEqual([{ highlighted: [{ id: 0, html: '<ts>l' }] }]);
    expect(helper.sent).toEqual([{ highlighted: [{ id: 0 }] }]);
  });
});
