// Claude Code's tools in the model's words, as the site learns them through
// the adapter registry: each tool's kind and its named inputs.

import { describe, expect, it } from 'vitest';
import { describeToolUse } from '../../../src/adapters/built-in.ts';

describe("Claude Code's tools, described", () => {
  it('names the command, the file, the edits and the pattern of the file and shell tools', () => {
    expect(describeToolUse('Bash', { command: 'npm test', description: 'Run the tests', timeout: 1000 })).toEqual({ kind: 'shell', subject: 'npm test', command: 'npm test', description: 'Run the tests', rest: { timeout: 1000 } });
    expect(describeToolUse('Read', { file_path: '/a/b.ts' })).toEqual({ kind: 'file_read', subject: '/a/b.ts', path: '/a/b.ts' });
    expect(describeToolUse('Write', { file_path: '/a/b.ts', content: 'x' })).toEqual({ kind: 'file_write', subject: '/a/b.ts', path: '/a/b.ts', content: 'x' });
    expect(describeToolUse('Edit', { file_path: '/a', old_string: 'x', new_string: 'y', replace_all: true })).toEqual({ kind: 'edit', subject: '/a', path: '/a', edits: [{ before: 'x', after: 'y' }], rest: { replace_all: true } });
    expect(describeToolUse('MultiEdit', { file_path: '/a', edits: [{ old_string: 'x', new_string: 'y' }, { old_string: 'p', new_string: 'q' }] }).edits).toEqual([
      { before: 'x', after: 'y' },
      { before: 'p', after: 'q' },
    ]);
    expect(describeToolUse('Grep', { pattern: 'TODO', path: 'src', glob: '*.ts' })).toEqual({ kind: 'search', subject: 'TODO', pattern: 'TODO', scope: 'src *.ts' });
    expect(describeToolUse('Glob', { pattern: '**/*.md' })).toEqual({ kind: 'search', subject: '**/*.md', pattern: '**/*.md' });
  });

  it('names the checklist, the subagent and the web tools’ inputs', () => {
    expect(describeToolUse('TodoWrite', { todos: [{ content: 'a', status: 'completed', activeForm: 'A' }, { content: 'b', status: 'in_progress' }, { content: 'c', status: 'odd' }] }).todos).toEqual([
      { text: 'a', state: 'completed' },
      { text: 'b', state: 'in_progress' },
      { text: 'c', state: 'pending' },
    ]);
    for (const name of ['Task', 'Agent']) expect(describeToolUse(name, { description: 'Find it', prompt: 'Look **here**', subagent_type: 'x' })).toEqual({ kind: 'agent', subject: 'Find it', description: 'Find it', prompt: 'Look **here**', rest: { subagent_type: 'x' } });
    expect(describeToolUse('WebFetch', { url: 'https://a.invalid', prompt: 'summarise' })).toEqual({ kind: 'web', subject: 'https://a.invalid', address: 'https://a.invalid', prompt: 'summarise' });
    expect(describeToolUse('WebSearch', { query: 'vitest' })).toEqual({ kind: 'web', subject: 'vitest', query: 'vitest' });
  });

  it('splits an MCP tool’s name into server and tool, and keeps any other tool’s whole input', () => {
    // The tool's name is on the call's line: the subject is what it works on, else the server and tool.
    expect(describeToolUse('mcp__github__create_issue', { title: 't' })).toEqual({ kind: 'mcp', subject: 't', server: 'github', tool: 'create_issue', rest: { title: 't' } });
    expect(describeToolUse('mcp__playwright__browser_close', {})).toEqual({ kind: 'mcp', subject: 'playwright · browser_close', server: 'playwright', tool: 'browser_close', rest: {} });
    expect(describeToolUse('SomethingNew', { a: [1] })).toEqual({ kind: 'other', rest: { a: [1] } });
    // Prose for the person stays prose, not a string escaped inside JSON.
    expect(describeToolUse('ExitPlanMode', { plan: '## Plan\n1. a' })).toEqual({ kind: 'other', subject: 'a plan to approve', prompt: '## Plan\n1. a' });
    expect(describeToolUse('Bash', 'not an object')).toEqual({ kind: 'other', rest: 'not an object' });
  });

  it('names what the task list, background shell, skill, message and tool search tools work on', () => {
    expect(describeToolUse('TaskCreate', { subject: 'Research plan mode', description: 'Long text', activeForm: 'Researching' })).toEqual({ kind: 'other', subject: 'Research plan mode', rest: { subject: 'Research plan mode', description: 'Long text', activeForm: 'Researching' } });
    expect(describeToolUse('TaskUpdate', { taskId: '2', status: 'in_progress' }).subject).toBe('task 2 → in progress');
    expect(describeToolUse('TaskUpdate', { taskId: 3, owner: 'alice' }).subject).toBe('task 3');
    expect(describeToolUse('TaskGet', { taskId: '2' }).subject).toBe('task 2');
    expect(describeToolUse('TaskOutput', { task_id: 'ac27727', block: false, timeout: 5000 }).subject).toBe('task ac27727');
    expect(describeToolUse('TaskStop', { task_id: 'b6d09ee' }).subject).toBe('task b6d09ee');
    expect(describeToolUse('BashOutput', { bash_id: 'dce0af' }).subject).toBe('shell dce0af');
    expect(describeToolUse('KillShell', { shell_id: 'dce0af' }).subject).toBe('shell dce0af');
    expect(describeToolUse('ToolSearch', { query: 'select:ExitPlanMode', max_results: 1 }).subject).toBe('select:ExitPlanMode');
    expect(describeToolUse('Skill', { skill: 'mats:project-setup', args: 'fast' }).subject).toBe('mats:project-setup fast');
    expect(describeToolUse('SendMessage', { to: 'alice', summary: 'round 2', message: 'Round 2 — go.' }).subject).toBe('to alice: round 2');
    expect(describeToolUse('SendMessage', { type: 'broadcast', content: 'Stop.\nAll of you.' }).subject).toBe('broadcast');
    expect(describeToolUse('AskUserQuestion', { questions: [{ question: 'What would you like to set up?' }, { question: 'Which shell?' }] }).subject).toBe('What would you like to set up? (and 1 more)');
    expect(describeToolUse('PowerShell', { command: 'Get-ChildItem', description: 'List' })).toEqual({ kind: 'shell', subject: 'Get-ChildItem', command: 'Get-ChildItem', description: 'List' });
  });

  it('gives a tool no adapter knows its first short string argument as its subject', () => {
    expect(describeToolUse('SomethingNew', { count: 3, body: 'line one\nline two', name: ' report.md ', other: 'x' })).toEqual({ kind: 'other', subject: 'report.md', rest: { count: 3, body: 'line one\nline two', name: ' report.md ', other: 'x' } });
    expect(describeToolUse('SomethingNew', { body: 'a'.repeat(201), id: 'b' }).subject).toBe('b');
    expect(describeToolUse('SomethingNew', 'not an object')).toEqual({ kind: 'other', rest: 'not an object' });
    expect(describeToolUse('SomethingNew', undefined)).toEqual({ kind: 'other' });
  });

  it('reads an empty text as absent, except the new text of an edit that deletes', () => {
    expect(describeToolUse('Write', { file_path: '', content: '' })).toEqual({ kind: 'file_write' });
    expect(describeToolUse('Task', { description: 'Find it', prompt: '' })).toEqual({ kind: 'agent', subject: 'Find it', description: 'Find it' });
    // An empty question is no question, as a missing one is: the input is shown as it was given.
    expect(describeToolUse('AskUserQuestion', { question: '' })).toEqual({ kind: 'other', rest: { question: '' } });
    expect(describeToolUse('Edit', { file_path: '/a', old_string: 'x', new_string: '' }).edits).toEqual([{ before: 'x', after: '' }]);
  });
});
