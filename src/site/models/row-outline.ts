// What the structure of a conversation needs of each `.sd` row, without its
// texts: when it was, its flags, and which parts it has. The structure is made from these (streams.ts), so it reads no row;
// a page reads its own rows when it is modelled (withParts), and the search
// index reads them step by step (search-text.ts).

import type { PartKind, RecordFlag } from '../../model/vocabulary.ts';
import type { Notice } from '../../model/notices.ts';
import type { Part, SessionDataRow } from '../../session-data/format.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { partView } from './parts.ts';
import type { PartView } from './views.ts';

/** Which part of its row a part is, as partsOfStep picks them: its kind, and the tool use it makes or answers. */
export interface PartIdentity {
  readonly k: PartKind;
  /** A call's tool use id. */
  readonly id?: string;
  /** The tool use a result or a medium answers. */
  readonly of?: string;
}

/** A part with its view, as a page shows it. */
export interface ShownPart extends PartIdentity {
  readonly view: PartView;
}

export interface PartOutline extends PartIdentity {
  /** The part as a page shows it, when its row's views are kept (outlineOfRow). */
  readonly view?: PartView;
}

export interface RowOutline {
  readonly ts?: string;
  readonly flags?: readonly RecordFlag[];
  /** What the adapter says a runtime record is (model/notices.ts). */
  readonly notice?: Notice;
  readonly parts: readonly PartOutline[];
}

/** Each part of a row, with its view (partView). */
export function shownPartsOf(row: SessionDataRow): ShownPart[] {
  return row.parts.map((part) => ({ k: part.k, id: callOf(part), of: answerOf(part), view: partView(part) }));
}

/**
 * The outline of a row; with `keepViews`, each part's view too, so that a
 * page shows the part without the row being read again. Each part's fields
 * are all present, some undefined, so that every outline has one shape:
 * outlines of many shapes take more heap (bench/results/measurements-behind-choices.md).
 */
export function outlineOfRow(row: SessionDataRow, keepViews: boolean): RowOutline {
  return {
    ts: row.ts,
    flags: row.flags,
    notice: row.notice,
    parts: row.parts.map((part) => ({ k: part.k, id: callOf(part), of: answerOf(part), view: keepViews ? partView(part) : undefined })),
  };
}

/** The tool use a call part makes. */
function callOf(part: Part): string | undefined {
  return part.k === 'call' ? part.id : undefined;
}

/** The tool use a result or a medium answers. */
function answerOf(part: Part): string | undefined {
  return part.k === 'result' || part.k === 'media' ? part.of : undefined;
}

/**
 * The parts a step shows, of the rows it cites, in order: a tool's call and
 * what came back, none for a provider call (its fragments are its steps),
 * and for any other step its record's parts but calls and results, its
 * record being the first row cited that the conversation has. `partsOf`
 * gives a row's parts (whole, outlined or shown), undefined when there is
 * no such row; it is asked only for the rows whose parts the step shows.
 */
export function partsOfStep<Part extends PartIdentity>(kind: string, id: string, refs: readonly EvidenceRef[], partsOf: (ref: EvidenceRef) => readonly Part[] | undefined): Part[] {
  const toolUse = toolUseOf(kind, id);
  if (toolUse !== undefined) return refs.flatMap((ref) => (partsOf(ref) ?? []).filter((part) => (part.k === 'call' && part.id === toolUse) || ((part.k === 'result' || part.k === 'media') && part.of === toolUse)));
  if (kind === 'llm.call') return [];
  for (const ref of refs) {
    const parts = partsOf(ref);
    if (parts !== undefined) return parts.filter((part) => part.k !== 'call' && part.k !== 'result');
  }
  return [];
}

/** The tool use a tool or agent call step is, by the id its node was given. */
export function toolUseOf(kind: string, id: string): string | undefined {
  return kind === 'tool' || kind === 'agent.call' ? id.slice(id.lastIndexOf('/tool/') + '/tool/'.length) : undefined;
}
