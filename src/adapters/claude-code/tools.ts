// Claude Code's tools described in the model's words (model/tools.ts): which
// tool does what, and which input field holds its command, path or prompt.
// A tool this table does not know is `other` (or `mcp`, by its name's
// `mcp__server__tool` form) and keeps its whole input.

import type { TodoState, ToolDescription } from '../../model/tools.ts';
import { isObject, text, type JsonObject as Input } from './json-fields.ts';

/** The input without the fields a description names. */
function without(input: Input, ...names: string[]): Input | undefined {
  const rest = Object.fromEntries(Object.entries(input).filter(([name]) => !names.includes(name)));
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function defined<T extends object>(description: T): T {
  return Object.fromEntries(Object.entries(description).filter(([, value]) => value !== undefined)) as T;
}

// A tool's name and a todo's state are the transcript's: both tables are
// Maps, so that a name like `constructor` finds nothing.
const TODO_STATES: ReadonlyMap<string, TodoState> = new Map([
  ['pending', 'pending'],
  ['in_progress', 'in_progress'],
  ['completed', 'completed'],
]);

const DESCRIBED: Record<string, (input: Input) => ToolDescription> = {
  Bash: (input) => defined({ kind: 'shell', subject: text(input.command), command: text(input.command), description: text(input.description), rest: without(input, 'command', 'description') }),
  Read: (input) => defined({ kind: 'file_read', subject: text(input.file_path), path: text(input.file_path), rest: without(input, 'file_path') }),
  NotebookRead: (input) => defined({ kind: 'file_read', subject: text(input.notebook_path), path: text(input.notebook_path), rest: without(input, 'notebook_path') }),
  LS: (input) => defined({ kind: 'file_read', subject: text(input.path), path: text(input.path), rest: without(input, 'path') }),
  Write: (input) => defined({ kind: 'file_write', subject: text(input.file_path), path: text(input.file_path), content: text(input.content), rest: without(input, 'file_path', 'content') }),
  Edit: (input) => defined({ kind: 'edit', subject: text(input.file_path), path: text(input.file_path), edits: [{ before: text(input.old_string) ?? '', after: text(input.new_string) ?? '' }], rest: without(input, 'file_path', 'old_string', 'new_string') }),
  MultiEdit: (input) =>
    defined({
      kind: 'edit',
      subject: text(input.file_path),
      path: text(input.file_path),
      edits: Array.isArray(input.edits) ? input.edits.map((edit: Input) => ({ before: text(edit?.old_string) ?? '', after: text(edit?.new_string) ?? '' })) : [],
      rest: without(input, 'file_path', 'edits'),
    }),
  Grep: (input) => defined({ kind: 'search', subject: text(input.pattern), pattern: text(input.pattern), scope: [text(input.path), text(input.glob)].filter(Boolean).join(' ') || undefined, rest: without(input, 'pattern', 'path', 'glob') }),
  Glob: (input) => defined({ kind: 'search', subject: text(input.pattern), pattern: text(input.pattern), scope: text(input.path), rest: without(input, 'pattern', 'path') }),
  TodoWrite: (input) =>
    defined({
      kind: 'todo',
      subject: Array.isArray(input.todos) ? `${input.todos.length} items` : undefined,
      todos: Array.isArray(input.todos) ? input.todos.map((todo: Input) => ({ text: text(todo?.content) ?? '', state: TODO_STATES.get(text(todo?.status) ?? '') ?? 'pending' })) : [],
      rest: without(input, 'todos'),
    }),
  Task: (input) => defined({ kind: 'agent', subject: text(input.description), description: text(input.description), prompt: text(input.prompt), rest: without(input, 'description', 'prompt') }),
  WebFetch: (input) => defined({ kind: 'web', subject: text(input.url), address: text(input.url), prompt: text(input.prompt), rest: without(input, 'url', 'prompt') }),
  WebSearch: (input) => defined({ kind: 'web', subject: text(input.query), query: text(input.query), rest: without(input, 'query') }),
  // Prose for the person: a plan to approve, a question to answer.
  ExitPlanMode: (input) => defined({ kind: 'other', subject: 'a plan to approve', prompt: text(input.plan), rest: without(input, 'plan') }),
  AskUserQuestion: (input) => defined({ kind: 'other', subject: text(input.question) ?? 'questions for the person', prompt: text(input.question), rest: without(input, 'question') }),
};
const DESCRIBE: ReadonlyMap<string, (input: Input) => ToolDescription> = new Map([...Object.entries(DESCRIBED), ['Agent', DESCRIBED.Task!]]);

/** A Claude Code tool use, by its tool's name and its input, in the model's words. */
export function describeClaudeCodeTool(name: string, input: unknown): ToolDescription {
  const known = DESCRIBE.get(name);
  if (known && isObject(input)) return known(input);
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (mcp) return defined({ kind: 'mcp', subject: `${mcp[1]} · ${mcp[2]}`, server: mcp[1], tool: mcp[2], rest: input });
  return defined({ kind: 'other', rest: input });
}
