// Verifies every round chain in a storage zone, and every branch record: rounds 1..N with no gap, each
// naming its predecessor's digest, each digest matching its bytes, and each
// round reading on from exactly where the one before stopped. The last check
// is the one no digest can make: it catches skipped evidence (seed
// design-notes/02 §2.5).

import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../landing/session-state.ts';
import { explicitBranches } from '../branches/explicit.ts';
import { ChainError, checkLinks, readRound, roundFiles, type RoundHead } from '../session-flow/chain.ts';
import type { Problem } from './storage.ts';

export function verifyChains(data: string): { chains: number; rounds: number; problems: Problem[] } {
  const problems: Problem[] = [];
  const relative = (file: string): string => path.relative(data, file).split(path.sep).join('/');
  const conversations = listFolder(path.join(data, '_conversations')).filter((name) => fs.statSync(path.join(data, '_conversations', name)).isDirectory());
  let rounds = 0;
  for (const conversation of conversations) {
    const readable: RoundHead[] = [];
    for (const file of roundFiles(data, conversation)) {
      rounds++;
      try {
        const { entities: _entities, ...head } = readRound(file);
        readable.push(head);
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        problems.push({ path: relative(file), what: error.message.replace(`${file}: `, '') });
      }
    }
    for (const problem of checkLinks(readable)) {
      const [file, ...what] = problem.split(': ');
      problems.push({ path: relative(file!), what: what.join(': ') });
    }
    // Branch records are immutable and named by their digest.
    for (const branch of explicitBranches(data, conversation)) if (!branch.intact) problems.push({ path: relative(branch.file), what: branch.problem! });
  }
  return { chains: conversations.length, rounds, problems };
}
