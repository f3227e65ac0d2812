// Claude Code's tools described in the model's words (model/tools.ts): which
// tool does what, and which input field holds its command, path or prompt.
// A tool this table does not know is `other` (or `mcp`, by its name's
// `mcp__server__tool` form) and keeps its whole input. Every tool the table
// knows names a subject, for the call's one line, whenever its input has the
// field that holds it (test/conformance/tool-subjects.test.ts checks this
// for every tool of the real transcripts).

import { firstShortArgument, type TodoState, type ToolDescription } from '../../model/tools.ts';
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
  PowerShell: (input) => defined({ kind: 'shell', subject: text(input.command), command: text(input.command), description: text(input.description), rest: without(input, 'command', 'description') }),
  // Prose for the person: a plan to approve, a question to answer.
  ExitPlanMode: (input) => defined({ kind: 'other', subject: 'a plan to approve', prompt: text(input.plan), rest: without(input, 'plan') }),
  AskUserQuestion: (input) => defined({ kind: 'other', subject: text(input.question) ?? firstQuestion(input.questions), prompt: text(input.question), rest: without(input, 'question') }),
  // The tools below are shown as their input is given; the subject says what each works on.
  TaskCreate: (input) => other(input, text(input.subject)),
  TaskUpdate: (input) => other(input, task(input.taskId, text(input.status))),
  TaskGet: (input) => other(input, task(input.taskId)),
  TaskOutput: (input) => other(input, task(input.task_id)),
  TaskStop: (input) => other(input, task(input.task_id)),
  BashOutput: (input) => other(input, shellId(input.bash_id)),
  KillShell: (input) => other(input, shellId(input.shell_id)),
  ToolSearch: (input) => other(input, text(input.query)),
  Skill: (input) => other(input, [text(input.skill), text(input.args)].filter(Boolean).join(' ') || undefined),
  SendMessage: (input) => {
    const to = text(input.to) ?? text(input.recipient);
    const about = text(input.summary);
    return other(input, to !== undefined ? `to ${to}${about !== undefined ? `: ${about}` : ''}` : about);
  },
};
const DESCRIBE: ReadonlyMap<string, (input: Input) => ToolDescription> = new Map([...Object.entries(DESCRIBED), ['Agent', DESCRIBED.Task!]]);

/** A call shown as its whole input, with the subject its tool's entry names, else its first short argument. */
function other(input: Input, subject: string | undefined): ToolDescription {
  return defined({ kind: 'other', subject: subject ?? firstShortArgument(input), rest: input });
}

/** A task of the runtime's task list by its id, and the state a call sets it to. */
function task(id: unknown, state?: string): string | undefined {
  const named = typeof id === 'number' ? String(id) : text(id);
  return named === undefined ? undefined : `task ${named}${state !== undefined ? ` → ${state.replace(/_/g, ' ')}` : ''}`;
}

/** A shell the agent started in the background, by its id. */
function shellId(id: unknown): string | undefined {
  const named = text(id);
  return named === undefined ? undefined : `shell ${named}`;
}

/** The first question of a list of them, with how many more follow. */
function firstQuestion(questions: unknown): string | undefined {
  if (!Array.isArray(questions)) return undefined;
  const asked = questions.flatMap((question) => (isObject(question) && text(question.question) !== undefined ? [text(question.question)!] : []));
  if (asked.length === 0) return undefined;
  return asked.length === 1 ? asked[0] : `${asked[0]} (and ${asked.length - 1} more)`;
}

/** A Claude Code tool use, by its tool's name and its input, in the model's words. */
export function describeClaudeCodeTool(name: string, input: unknown): ToolDescription {
  const known = DESCRIBE.get(name);
  if (known && isObject(input)) return known(input);
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  // The tool's name is on the call's line already: its subject is what it works on, when an argument says.
  if (mcp) return defined({ kind: 'mcp', subject: firstShortArgument(input) ?? `${mcp[1]} · ${mcp[2]}`, server: mcp[1], tool: mcp[2], rest: input });
  return defined({ kind: 'other', rest: input });
}
