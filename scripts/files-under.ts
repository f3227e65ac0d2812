// Every file under a folder, recursively, sorted: for the benchmark and the
// conformance tests, which walk trees of transcripts they did not write.

import fs from 'node:fs';
import path from 'node:path';

export function filesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(full));
    else if (entry.isFile()) found.push(full);
  }
  return found.sort();
}
