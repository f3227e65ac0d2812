// Usage as observed, and what a conversation is called, where and with which
// models, on the fixtures written for them (fixture numbers 201-299).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_FIRST_PROMPT, FIXTURE_SESSIONS, MARKDOWN_PROMPT } from '../../scripts/write-fixtures.ts';
import { nameConversation, TITLE_CHARACTERS } from '../../src/assembly/conversation-names.ts';
import { indexEntryOf, type IndexEntry } from '../../src/index/session-index.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { readChain } from '../../src/session-flow/chain.ts';
import type { FlowNode } from '../../src/model/structure.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
let data = '';

beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

/** The folded conversation's nodes, after a parse. */
function nodesOf(session: string): FlowNode[] {
  parseSession(data, session);
  return [...readChain(data, session).nodes.values()];
}

function sessionAttrs(session: string): Record<string, unknown> {
  return nodesOf(session).find((node) => node.kind === 'session')!.attrs!;
}

describe('usage as observed', () => {
  it('reports an unfinished call’s input and cache tokens, and its last output count as a lower bound', () => {
    const calls = nodesOf(FIXTURE_SESSIONS.unfinishedCall).filter((node) => node.kind === 'llm.call');
    expect(calls.map((call) => [call.attrs!.model, call.attrs!.usage])).toEqual([
      ['claude-sonnet-4-5', { input: 90, output: 12, cache_read: 800, cache_write: 40, output_final: true }],
      ['claude-opus-4-5', { input: 120, output: 7, cache_read: 2000, cache_write: 60, output_final: false }],
    ]);
  });

  it('says which output counts are final, and the title, project and models, in conversation --json and as text', () => {
    parseSession(data, FIXTURE_SESSIONS.unfinishedCall);
    const result = spawnSync(process.execPath, [launcher, 'conversation', FIXTURE_SESSIONS.unfinishedCall, '--data', data, '--json'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const folded = JSON.parse(result.stdout) as { models: string[]; project: unknown; git_branches: string[]; title: string; title_source: string; nodes: { kind: string; attrs?: { usage?: { output_final?: boolean } } }[] };
    expect(folded.nodes.filter((node) => node.kind === 'llm.call').map((node) => node.attrs?.usage?.output_final)).toEqual([true, false]);
    expect(folded.models).toEqual(['claude-opus-4-5', 'claude-sonnet-4-5']);
    expect(folded.project).toEqual({ folder: '-home-user-fixtures-unfinished-call', cwd: '/home/user/work/meter' });
    expect([folded.title, folded.title_source]).toEqual(['Count the lines of the parser.', 'first-prompt']);
    expect(folded.git_branches).toEqual(['main']);
    const readable = spawnSync(process.execPath, [launcher, 'conversation', FIXTURE_SESSIONS.unfinishedCall, '--data', data], { encoding: 'utf8' });
    expect(readable.stdout).toContain('\ntitle "Count the lines of the parser." (first-prompt)\nproject -home-user-fixtures-unfinished-call (/home/user/work/meter)\ngit branch main\nmodels claude-opus-4-5, claude-sonnet-4-5\n');
  });
});

describe('git branches', () => {
  it('names every git branch the main stream’s typed prompts and files name, else any stream’s, once each, in the order first named', () => {
    const prompt = (row: number, gitBranch: string | undefined): IndexEntry => ({ seq: 1, row, place: 'main', kind: 'transcript', from: 'person', flags: [], parts: ['text'], calls: [], results: [], prompt: `prompt ${row}`, ...(gitBranch !== undefined ? { gitBranch } : {}) });
    const main = [prompt(1, 'main'), prompt(2, undefined), prompt(3, 'feature/login'), prompt(4, 'main'), prompt(5, 'HEAD')];
    expect(nameConversation(main, main, [prompt(9, 'elsewhere')], []).git_branches).toEqual(['main', 'feature/login', 'HEAD']);
    expect(nameConversation([prompt(1, undefined)], [], [prompt(9, 'elsewhere')], []).git_branches).toEqual(['elsewhere']);
    // A landed file's first row names its branch too, typed prompt or not.
    const first = indexEntryOf(1, 'main', 'transcript', { row: 1, from: 'agent', project: '-home-user-app', git_branch: 'warm-up', parts: [] });
    expect(first.gitBranch).toBe('warm-up');
    expect(indexEntryOf(1, 'main', 'transcript', { row: 2, from: 'agent', git_branch: 'warm-up', parts: [] }).gitBranch).toBeUndefined();
    expect(nameConversation([], [], [first], []).git_branches).toEqual(['warm-up']);
    expect(nameConversation([prompt(1, undefined)], [], [], []).git_branches).toBeUndefined();
  });
});

describe('project', () => {
  it('takes the working directory from a child agent’s file when the main stream names none, not from the folder’s name', () => {
    // An older session's main file can be empty while its child agents' files name the folder.
    const childFirst = indexEntryOf(1, 'agent-7010dafc', 'transcript', { row: 1, from: 'agent', project: '-home-user-review-helper', cwd: '/home/user/review-helper', parts: [{ k: 'text', state: 'available', bytes: 6, text: 'Warmup' }] });
    expect(childFirst.cwd).toBe('/home/user/review-helper');
    expect(indexEntryOf(1, 'agent-7010dafc', 'transcript', { row: 2, from: 'agent', cwd: '/home/user/review-helper', parts: [] }).cwd).toBeUndefined();
    expect(nameConversation([], [], [childFirst], []).project).toEqual({ folder: '-home-user-review-helper', cwd: '/home/user/review-helper' });
    // The main stream's own first row wins over any child's.
    const mainFirst = indexEntryOf(1, 'main', 'transcript', { row: 1, from: 'person', project: '-home-user-review-helper', cwd: '/home/user/review-helper/src', parts: [] });
    expect(nameConversation([mainFirst], [], [childFirst], []).project?.cwd).toBe('/home/user/review-helper/src');
  });
});

describe('titles', () => {
  it('takes a summary only when the leaf it names is on the active branch', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.summaryTitle)).toMatchObject({ title: 'Haiku about snow', title_source: 'summary' });
  });

  it('prefers the title the person gave to generated titles and summaries', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.customTitle)).toMatchObject({ title: 'Migration, take two', title_source: 'custom-title' });
  });

  it('takes the latest generated title over a summary', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.generatedTitle)).toMatchObject({ title: 'Speeding up the type check', title_source: 'ai-title' });
  });

  it('falls back to the first prompt a person typed, past commands and the context the runtime added, on one line and shortened', () => {
    const attrs = sessionAttrs(FIXTURE_SESSIONS.commandFirst);
    const expected = `${Array.from(COMMAND_FIRST_PROMPT.replace(/\s+/g, ' ').trim()).slice(0, TITLE_CHARACTERS).join('').trimEnd()}…`;
    expect(expected.startsWith('Fix the login bug: the session cookie expires too early.')).toBe(true);
    expect(attrs).toMatchObject({ title: expected, title_source: 'first-prompt', project: { folder: '-home-user-fixtures-command-first', cwd: '/home/user/work/login' }, models: ['claude-opus-4-5'] });
  });

  it('takes the words of a first prompt written in markdown, without its marks', () => {
    expect(MARKDOWN_PROMPT.startsWith('## 🔴')).toBe(true);
    expect(sessionAttrs(FIXTURE_SESSIONS.markdownPrompt)).toMatchObject({ title: '🔴 Pre-flight check Read plan.md first, then the guide: 1. build 2. test', title_source: 'first-prompt' });
  });

  it('takes no title from a custom title that is Claude Code’s own caveat, as a fork of a session that opened with one has', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.caveatForkTitle)).toMatchObject({ title: 'Review the device access dialogue.', title_source: 'first-prompt' });
  });

  it('titles a session in which no prompt was typed by the first slash command the agent answered, with its arguments', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.slashCommandOnly)).toMatchObject({ title: '/init focus on the audio code', title_source: 'slash-command' });
  });

  it('takes a slash command only when no prompt was typed, one that ran in the runtime alone only when no command was answered', () => {
    const record = (row: number, fields: Partial<IndexEntry>): IndexEntry => ({ seq: 1, row, place: 'streams/main', kind: 'transcript', from: 'person', flags: [], parts: ['text'], calls: [], results: [], ...fields });
    const model = record(1, { command: '/model', flags: ['command'] });
    const output = record(2, { from: 'runtime', flags: ['command'] });
    const init = record(3, { command: '/init', flags: ['command'] });
    const expansion = record(4, { from: 'runtime', flags: ['injected'] });
    const answer = record(5, { from: 'agent', call: 'msg_1' });
    const typed = record(6, { prompt: 'Now fix the **API**.' });
    expect(nameConversation([model, output, init, expansion, answer], [], [], [])).toMatchObject({ title: '/init', title_source: 'slash-command' });
    expect(nameConversation([model, output], [], [], [])).toMatchObject({ title: '/model', title_source: 'slash-command' });
    expect(nameConversation([model, output, init, expansion, answer, typed], [], [], [])).toMatchObject({ title: 'Now fix the API.', title_source: 'first-prompt' });
  });

  it('gives a conversation with no prompt and no title records no title', () => {
    const attrs = sessionAttrs(FIXTURE_SESSIONS.prunedMain);
    expect(attrs.title).toBeUndefined();
    expect(attrs.title_source).toBeUndefined();
  });
});

