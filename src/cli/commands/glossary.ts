// `sessionizer glossary [--json]`: the model's words beside Claude Code's.

import { DEFAULT_ADAPTER } from '../../adapters/built-in.ts';
import { EXIT_OK, parseCommandArguments, type Io } from '../command.ts';

export function glossary(argv: string[], io: Io): number {
  const { values } = parseCommandArguments('glossary', argv, { json: { type: 'boolean' } });
  if (values.json) {
    io.out(`${JSON.stringify({ dialect: DEFAULT_ADAPTER.glossary.dialect, entries: DEFAULT_ADAPTER.glossary.entries })}\n`);
    return EXIT_OK;
  }
  const width = Math.max(...Object.keys(DEFAULT_ADAPTER.glossary.entries).map((name) => name.length));
  for (const [name, entry] of Object.entries(DEFAULT_ADAPTER.glossary.entries)) {
    io.out(`${name.padEnd(width)}  ${entry.native || '(no native name)'}  — ${entry.where}\n`);
  }
  return EXIT_OK;
}
