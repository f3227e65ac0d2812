// The `.sd` dialects this build can derive, by the name a `.sd` header gives.
// Verification uses it to derive a `.sd` again from its landed file.

import type { Converter } from '../session-data/derive.ts';
import { claudeCodeConverter } from './claude-code/convert.ts';

// Every converter this build has: verification derives with each while a `.sd` has not yet said which it needs.
export const CONVERTERS: readonly Converter[] = [claudeCodeConverter];

export function converterFor(dialect: string): Converter | undefined {
  return CONVERTERS.find((converter) => converter.dialect === dialect);
}
