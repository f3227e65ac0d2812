#!/usr/bin/env node
// The `sessionizer` command. The project is TypeScript run as it is, with no
// build step and no compiled copy that could drift from the source: from a
// bundle kept for the exact source (kept-command.mjs), else through tsx, so a
// fresh clone works right after `npm ci`.
import { keptCommand } from './kept-command.mjs';

// A reader that stops early (`sessionizer sources | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = (await keptCommand()) ?? (await throughTsx());
process.exitCode = await main(process.argv.slice(2));

async function throughTsx() {
  const { register } = await import('tsx/esm/api');
  register();
  return import('./main.ts');
}
