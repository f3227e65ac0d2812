// `sessionizer glossary [--json]`: the model's words beside Claude Code's.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import { command, EXIT_OK, line, type Given, type Io } from '../command.ts';

const OPTIONS = {
  json: { type: 'boolean', description: 'print the glossary as one line of JSON' },
} as const;

export const glossary = command({
  name: 'glossary',
  summary: "the model's words and Claude Code's",
  options: OPTIONS,
  examples: ['sessionizer glossary'],
  run: printGlossary,
});

function printGlossary({ values }: Given<typeof OPTIONS>, io: Io): number {
  if (values.json) {
    io.out(`${JSON.stringify({ dialect: DEFAULT_ADAPTER.glossary.dialect, entries: DEFAULT_ADAPTER.glossary.entries })}\n`);
    return EXIT_OK;
  }
  const width = Math.max(...Object.keys(DEFAULT_ADAPTER.glossary.entries).map((name) => name.length));
  for (const [name, entry] of Object.entries(DEFAULT_ADAPTER.glossary.entries)) {
    io.out(line(`${name.padEnd(width)}  ${entry.native || '(no native name)'}  — ${entry.where}`));
  }
  return EXIT_OK;
}
