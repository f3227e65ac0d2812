// The glossary page's model: every word of the model a page may show (in
// an evidence fold or the audit), what it means, and what each built-in
// adapter's runtime calls it.

import { BUILT_IN_ADAPTERS } from '../../adapters/built-in.ts';
import { CLAIM_STATES, CONTAINER_KINDS, CORRELATION_QUALITIES, RELATION_TYPES, STEP_KINDS, UNRESOLVED_KINDS } from '../../model/structure.ts';
import { TOOL_KINDS } from '../../model/tools.ts';

export interface GlossaryTerm {
  readonly term: string;
  readonly meaning: string;
  /** What each runtime calls it and where it records it. */
  readonly natives: readonly { readonly dialect: string; readonly native: string; readonly where: string }[];
}

export interface GlossarySection {
  readonly title: string;
  readonly terms: readonly GlossaryTerm[];
}

const CONTENT_STATES: Record<string, string> = {
  available: 'the content is held whole',
  truncated: 'the source held only part of the content',
  redacted: 'a secret was taken out of the content before it was exported',
  unavailable: 'the source does not hold the content',
};

export function glossarySections(): GlossarySection[] {
  const natives = (term: string): GlossaryTerm['natives'] =>
    BUILT_IN_ADAPTERS.flatMap((adapter) => {
      const entry = adapter.glossary?.entries[term];
      return entry && adapter.glossary ? [{ dialect: adapter.glossary.dialect, native: entry.native, where: entry.where }] : [];
    });
  const section = (title: string, table: Record<string, string>): GlossarySection => ({ title, terms: Object.entries(table).map(([term, meaning]) => ({ term, meaning, natives: natives(term) })) });
  return [
    section('What a conversation is made of', CONTAINER_KINDS),
    section('Steps', STEP_KINDS),
    section('Kinds of tool', TOOL_KINDS),
    section('Relations between steps', RELATION_TYPES),
    section('How well a join is founded (correlation)', CORRELATION_QUALITIES),
    section('What kind of claim a value is (qualification)', CLAIM_STATES),
    section('Unresolved references', UNRESOLVED_KINDS),
    section('Content states', CONTENT_STATES),
  ];
}
