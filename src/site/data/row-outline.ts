// What the plan of a conversation needs of each `.sd` row, without its
// texts: when it was, its flags, and for each part what it weighs on a page
// and the words it gives the search index. The structure is made from
// these (streams.ts), so it reads no row; a page reads its own rows when it
// is modelled (withParts).

import type { PartKind, RecordFlag } from '../../model/vocabulary.ts';
import type { SessionDataRow } from '../../session-data/format.ts';
import { partView } from './parts.ts';
import { partWord } from './search-text.ts';
import type { PartView } from './views.ts';

export interface PartOutline {
  readonly k: PartKind;
  /** A call's tool use id. */
  readonly id?: string;
  /** The tool use a result or a medium answers. */
  readonly of?: string;
  /** An estimate of the HTML the part renders to (partWeight). */
  readonly weight: number;
  /** What it gives the search index, if anything (search-text.ts, partWord). */
  readonly word?: string;
  /** The part as a page shows it, when its row's views are kept (outlineOfRow). */
  readonly view?: PartView;
}

export interface RowOutline {
  readonly ts?: string;
  readonly flags?: readonly RecordFlag[];
  readonly parts: readonly PartOutline[];
}

/**
 * How much larger text grows once escaped or highlighted. Checked against
 * the pages written: on the shared corpus the largest page came to 896 KB
 * from an estimate within 60 % of the 1 MiB budget
 * (bench/results/site-2026-12-02.md), hence that margin in plan.ts.
 */
const CODE_FACTOR = 3;
const TEXT_FACTOR = 1.2;

/** An estimate of the HTML a part renders to, past its step's fixed markup. */
export function partWeight(part: PartView): number {
  return part.segments.reduce((sum, segment) => sum + segment.text.length * (segment.language ? CODE_FACTOR : TEXT_FACTOR), 0);
}

/**
 * The outline of a row; with `keepViews`, each part's view too (partView),
 * so that a page shows the part without the row being read again.
 */
export function outlineOfRow(row: SessionDataRow, keepViews: boolean): RowOutline {
  return {
    ...(row.ts !== undefined ? { ts: row.ts } : {}),
    ...(row.flags !== undefined ? { flags: row.flags } : {}),
    parts: row.parts.map((part) => {
      const view = partView(part);
      const word = partWord(view);
      return {
        k: part.k,
        ...(part.k === 'call' ? { id: part.id } : {}),
        ...((part.k === 'result' || part.k === 'media') && part.of !== undefined ? { of: part.of } : {}),
        weight: partWeight(view),
        ...(word !== undefined ? { word } : {}),
        ...(keepViews ? { view } : {}),
      };
    }),
  };
}

/**
 * The parts a step shows, of the parts of the rows it is made of, in order
 * (whole rows' parts, or their outlines'): a tool's call and what came
 * back, none for a provider call (its fragments are its steps), and for any
 * other step its record's parts but calls and results.
 */
export function partsOfStep<Part extends { readonly k: PartKind; readonly id?: string; readonly of?: string }>(kind: string, id: string, rows: readonly (readonly Part[])[]): Part[] {
  const toolUse = toolUseOf(kind, id);
  if (toolUse !== undefined) return rows.flatMap((parts) => parts.filter((part) => (part.k === 'call' && part.id === toolUse) || ((part.k === 'result' || part.k === 'media') && part.of === toolUse)));
  if (kind === 'llm.call') return [];
  return (rows[0] ?? []).filter((part) => part.k !== 'call' && part.k !== 'result');
}

/** The tool use a tool or agent call step is, by the id its node was given. */
export function toolUseOf(kind: string, id: string): string | undefined {
  return kind === 'tool' || kind === 'agent.call' ? id.slice(id.lastIndexOf('/tool/') + '/tool/'.length) : undefined;
}
