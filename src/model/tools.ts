// What a tool use is, in the model's words: the kind of work it does and
// its named inputs. An adapter knows its runtime's tool names and input
// fields (Claude Code's: adapters/claude-code/tools.ts) and describes each
// call in these words; the site renders a call from its description alone.

export const TOOL_KINDS = {
  shell: 'runs a shell command',
  file_read: 'reads a file',
  file_write: 'writes a whole file',
  edit: 'replaces text in a file',
  search: 'searches file names or file contents',
  todo: 'keeps a checklist of the work',
  agent: 'starts a subagent with a prompt',
  web: 'fetches an address or searches the web',
  mcp: 'calls a tool of an MCP server',
  other: 'any other tool',
} as const;
export type ToolKind = keyof typeof TOOL_KINDS;

export type TodoState = 'pending' | 'in_progress' | 'completed';

export interface ToolDescription {
  readonly kind: ToolKind;
  /** What the call is about, on one line: a command, a path, a pattern, an address, a query. */
  readonly subject?: string;
  /** The caller's own words for what the call does. */
  readonly description?: string;
  readonly command?: string;
  readonly path?: string;
  /** A whole file's new content. */
  readonly content?: string;
  /** Replacements, in order: the text before and after. */
  readonly edits?: readonly { readonly before: string; readonly after: string }[];
  readonly pattern?: string;
  /** Where a search looks: a folder, a file filter. */
  readonly scope?: string;
  readonly todos?: readonly { readonly text: string; readonly state: TodoState }[];
  readonly prompt?: string;
  readonly address?: string;
  readonly query?: string;
  readonly server?: string;
  readonly tool?: string;
  /** The input not named above, as it was given. */
  readonly rest?: unknown;
}

/** The most characters a string argument has to be the subject of a call no description names one for. */
export const SHORT_ARGUMENT_CHARACTERS = 200;

/**
 * The first string argument of a call's input, in the order the runtime
 * wrote them, that reads as a subject: not empty, on one line and short
 * (a name, an address, an id); undefined when there is none. What a tool no
 * adapter knows is about, shown on its one line.
 */
export function firstShortArgument(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  for (const value of Object.values(input)) {
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed !== '' && !trimmed.includes('\n') && Array.from(trimmed).length <= SHORT_ARGUMENT_CHARACTERS) return trimmed;
  }
  return undefined;
}
