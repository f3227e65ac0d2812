// A conversation's structure as a round publishes it: assembly of the
// session's index, with the natural branches of its main stream.

import { assembleStructure, type AssembleOptions } from '../assembly/assemble.ts';
import { analyseBranches } from '../branches/natural.ts';
import type { SessionIndex } from '../index/session-index.ts';
import type { Structure } from '../model/structure.ts';

export function assemble(index: SessionIndex, options: AssembleOptions): Structure {
  return assembleStructure(index, options, analyseBranches);
}
