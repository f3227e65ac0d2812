// `sessionizer glossary [--json]`: the model's words beside Claude Code's.

import { GLOSSARY, GLOSSARY_DIALECT } from '../../adapters/claude-code/glossary.ts';
import { EXIT_OK, parseCommandArguments, type Io } from '../command.ts';

export function glossary(argv: string[], io: Io): number {
  const { values } = parseCommandArguments('glossary', argv, { json: { type: 'boolean' } });
  if (values.json) {
    io.out(`${JSON.stringify({ dialect: GLOSSARY_DIALECT, entries: GLOSSARY })}\n`);
    return EXIT_OK;
  }
  const width = Math.max(...Object.keys(GLOSSARY).map((name) => name.length));
  for (const [name, entry] of Object.entries(GLOSSARY)) {
    io.out(`${name.padEnd(width)}  ${entry.native || '(no native name)'}  — ${entry.where}\n`);
  }
  return EXIT_OK;
}
