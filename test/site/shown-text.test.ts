// The helpers a tool card renders with: an edit as a diff, terminal output's
// colours as classes (the pages' policy allows no inline style).

import { describe, expect, it } from 'vitest';
import { partView } from '../../src/site/models/parts.ts';
import { compact, compactionWords, editDiff, firstLine, noticeWords, runtimeLine, shortDuration, terminalRuns } from '../../src/site/models/shown-text.ts';

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
    expect(terminalRuns('\u001b[41;97m FAIL \u001b[0m')).toEqual([{ text: ' FAIL ', classes: 'ansi-bright-white-fg ansi-red-bg' }]);
  });

  it('gives a fold the first line of what it holds', () => {
    expect(firstLine('\n  first\nsecond')).toBe('first');
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});

describe('what the runtime added, as a reader is told it', () => {
  it('sums a fold up in words: a wrapping tag, its summary, a JSON object’s type or fields, no colour codes', () => {
    expect(runtimeLine('<system-reminder>\nPostToolUse:Edit hook additional context: [COMPILE] ok\n</system-reminder>')).toBe('System reminder: PostToolUse:Edit hook additional context: [COMPILE] ok');
    expect(runtimeLine('<task-notification>\n<task-id>b1</task-id>\n<summary>Background command "mix test" completed</summary>\n</task-notification>')).toBe('Task notification: Background command "mix test" completed');
    expect(runtimeLine('<task-id>b1</task-id> <summary>Done</summary>', 'Task notification')).toBe('Task notification: Done');
    expect(runtimeLine('{"type":"deferred_tools_delta","addedNames":["A"]}')).toBe('Deferred tools delta');
    // Empty and false fields say nothing; a list of one text is the text.
    expect(runtimeLine('{"hookCount":1,"hookInfos":[{"command":"x --idle"}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":true}')).toBe('hookCount: 1 · hookInfos: x --idle · hasOutput: true');
    expect(runtimeLine('{"files":["a.ts","b.ts"],"options":{"deep":true},"labels":["one"]}')).toBe('files: 2 entries · options · labels: one');
    expect(runtimeLine('\u001b[1mStop\u001b[22m [uv run pytest] completed')).toBe('Stop [uv run pytest] completed');
  });

  it('shows a text part the runtime wrapped in a tag of its own as context, and one that is JSON laid out as JSON', () => {
    const text = (value: string) => partView({ k: 'text', state: 'available', bytes: value.length, text: value });
    const opened = text('<ide_opened_file>The user opened the file /home/ada/app/main.ts in the IDE.</ide_opened_file>');
    expect([opened.context, opened.segments.map((segment) => segment.text)]).toEqual(['IDE opened file', ['The user opened the file /home/ada/app/main.ts in the IDE.']]);
    // A word-like tag a reply may use is prose, not the runtime's context.
    expect(text('<b>bold</b>').context).toBeUndefined();
    expect(text('{"hookCount":1}').segments).toEqual([{ text: '{\n  "hookCount": 1\n}', language: 'json' }]);
  });
});

describe('the runtime’s notices in words', () => {
  it('says a duration as a reader does', () => {
    expect([92, 1203, 9949, 48_000, 92_641, 135_906, 3_600_000, 7_500_000].map(shortDuration)).toEqual(['92 ms', '1.2 s', '9.9 s', '48 s', '1 min 33 s', '2 min 16 s', '1 h', '2 h 5 min']);
  });

  it('rounds a count of tokens half up', () => {
    expect([950, 7850, 12_345, 173_429, 4_550_000, 15_200_000].map(compact)).toEqual(['950', '7.9k', '12k', '173k', '4.6M', '15M']);
  });

  it('names each kind of notice, briefly and in full', () => {
    expect(noticeWords({ kind: 'hook', name: 'PostToolUse', ms: 92 })).toEqual({ short: 'Hook · PostToolUse', full: 'Hook · PostToolUse · 92 ms' });
    expect(noticeWords({ kind: 'hook', name: 'Stop', count: 3, failed: true })).toEqual({ short: 'Hook · Stop', full: 'Hook · Stop · 3 hooks · failed' });
    expect(noticeWords({ kind: 'turn', ms: 92_641 }).full).toBe('Turn took 1 min 33 s');
    expect(noticeWords({ kind: 'turn' }).full).toBe('Turn finished');
    expect(noticeWords({ kind: 'recap' }).full).toBe('Recap');
    expect(noticeWords({ kind: 'reminder', name: 'task list', count: 0 }).full).toBe('Reminder · task list · 0 items');
    expect(noticeWords({ kind: 'file_change', name: 'src/app.py' })).toEqual({ short: 'File changed', full: 'File changed · src/app.py' });
    expect(noticeWords({ kind: 'request_error', name: 'FailedToOpenSocket', attempt: 1, attempts: 10, ms: 530 }).full).toBe('Request failed · FailedToOpenSocket · try 1 of 10 · next in 530 ms');
    expect(noticeWords({ kind: 'context', name: 'Tools made available', count: 26 }).full).toBe('Tools made available · 26 added');
  });

  it('says what a compaction did', () => {
    expect(compactionWords({ kind: 'compaction', trigger: 'automatic', tokens_before: 173_429, tokens_after: 7_850 })).toBe('Compacted automatically: 173k → 7.9k tokens');
    expect(compactionWords({ kind: 'compaction', trigger: 'manual' })).toBe('Compacted by /compact');
    expect(compactionWords({ kind: 'compaction', tokens_before: 150_000 })).toBe('Conversation compacted: 150k tokens before');
    expect(compactionWords(undefined)).toBe('Conversation compacted');
  });
});

describe('a runtime line with JSON in it', () => {
  it('tells an error a client reports by its words and the message inside its JSON', () => {
    expect(runtimeLine('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"}}')).toBe('API Error: 400 · thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    expect(runtimeLine('Failed {"type":"overloaded_error"}')).toBe('Failed · Overloaded error');
    expect(runtimeLine('a brace { that is not JSON')).toBe('a brace { that is not JSON');
  });
});
