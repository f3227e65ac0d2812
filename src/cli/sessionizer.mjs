#!/usr/bin/env node
// The `sessionizer` command. The project is TypeScript run as it is, through
// tsx, so a fresh clone works right after `npm ci` with no build step and no
// compiled copy that could drift from the source.
import { register } from 'tsx/esm/api';

register();
// A reader that stops early (`sessionizer sources | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
