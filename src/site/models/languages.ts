// The language shiki highlights a file in, by its name's extension: shiki
// knows most extensions as language names or aliases (ts, py, rb, yml);
// these are the common ones it does not. The extension is the transcript's,
// so the table is a Map: `x.constructor` names no language.

const BY_EXTENSION: ReadonlyMap<string, string> = new Map(Object.entries({ mjs: 'js', cjs: 'js', mts: 'ts', cts: 'ts', h: 'c', hpp: 'cpp', cc: 'cpp', hh: 'cpp', txt: 'text', log: 'text', zsh: 'bash', bash: 'bash', env: 'dotenv', lock: 'json', jsonl: 'json', ex: 'elixir', exs: 'elixir', heex: 'html', eex: 'html' }));

export function languageOfPath(file: string | undefined): string {
  if (file === undefined) return 'text';
  const name = file.slice(file.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile') return 'docker';
  if (name === 'makefile') return 'make';
  const dot = name.lastIndexOf('.');
  if (dot < 0) return 'text';
  const extension = name.slice(dot + 1);
  return BY_EXTENSION.get(extension) ?? extension;
}

/** Above this, code is shown as plain escaped text: highlighting time and HTML grow with it. */
const HIGHLIGHT_LIMIT = 24 * 1024;

/** The names shiki gives plain text, which no grammar highlights: a fence with no language, a `.txt` file. */
const PLAIN_TEXT = new Set(['text', 'plaintext', 'txt', 'plain']);

/**
 * Whether the browser may highlight `code` in `language`: a language is
 * named, it is not plain text, and the code is within HIGHLIGHT_LIMIT. A
 * page whose code may not be highlighted loads no highlighter.
 */
export function mayHighlight(language: string | undefined, code: string): boolean {
  return language !== undefined && language !== '' && !PLAIN_TEXT.has(language.toLowerCase()) && code.length <= HIGHLIGHT_LIMIT;
}
