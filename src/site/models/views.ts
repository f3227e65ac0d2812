// The page models: what a site page shows, already in the model's words and
// already decided (which parts, which links, which badges). The Astro pages
// and the components only render these; nothing below them reads a bundle.

import type { ContentState, PartKind } from '../../model/vocabulary.ts';
import type { Usage } from '../../session-data/format.ts';
import type { ToolDescription } from '../../model/tools.ts';
import type { Notice } from '../../model/notices.ts';

/**
 * A piece of a part's text: plain, or code in a language, which the page
 * leaves plain and the browser highlights when it is first shown
 * (generator/browser-highlight.ts).
 */
export interface Segment {
  readonly text: string;
  readonly language?: string;
}

export interface PartView {
  readonly kind: PartKind;
  readonly state: ContentState;
  /** The original content's size, whatever part of it is held. */
  readonly bytes: number;
  /** In state `redacted`: the bytes a redaction took out of the content. */
  readonly removed?: number;
  /** How much of the held content the page shows; less than held when it was cut for the page. */
  readonly shownBytes: number;
  readonly heldBytes: number;
  readonly segments: Segment[];
  /** A name that goes with the part: a call's tool, a media type, why an adapter could not describe it. */
  readonly label?: string;
  readonly failed?: boolean;
  /** Long content starts folded. */
  readonly long: boolean;
  /** A call's tool use in the model's words; its segments are the pieces of it shown as code (parts.ts, callSegments). */
  readonly tool?: ToolDescription;
  /** Text the runtime wrapped in a tag of its own and added to a message (an IDE's opened file): the tag in words; the segments hold what it wraps. */
  readonly context?: string;
  /** A medium the page shows as an image (images.ts). */
  readonly image?: ImageView;
  /** Why a medium is not shown, in words that follow "not shown: "; set for every medium without an image. */
  readonly notShown?: string;
}

/** An image as a page shows it: a file of the site, laid out before it loads. */
export interface ImageView {
  /** From the site root: images/<sha256>.<extension>. */
  readonly file: string;
  /** Its width and height from its header, when it could be read. */
  readonly width?: number;
  readonly height?: number;
  /** What it is, for a reader who does not see it: where it was, its type and its size. */
  readonly alt: string;
}

export interface EvidenceView {
  readonly seq: number;
  readonly row: number;
  /** The landed file, from the export folder's root. */
  readonly file: string | undefined;
  /** The row on its evidence page, from the site root with its anchor (evidence.ts); undefined when the landed file is not in the bundle. */
  readonly page?: string;
}

export interface LinkView {
  readonly label: string;
  /** A page file from the site root, with an anchor; undefined when the target is on no page. */
  readonly href: string | undefined;
  readonly quality?: string;
  readonly via?: string;
  /** The path the reader is on, among the alternatives at a fork. */
  readonly current?: boolean;
}

export interface UnresolvedView {
  readonly kind: string;
  readonly state: string;
  readonly about: string;
  readonly meaning: string;
}

export interface StepView {
  readonly id: string;
  readonly anchor: string;
  readonly kind: string;
  readonly time?: string;
  readonly evidence: EvidenceView[];
  readonly parts: PartView[];
  readonly flags: string[];
  /** Facts the structure qualifies: a result's content state, an unavailable timing. */
  readonly qualities: { readonly name: string; readonly value: string }[];
  readonly usage?: Usage;
  /** A runtime step's record as the adapter names it: a hook, a finished turn, a compaction (model/notices.ts). */
  readonly notice?: Notice;
  readonly fragments?: number;
  readonly toolName?: string;
  readonly links: LinkView[];
  readonly unresolved: UnresolvedView[];
  /** The steps of a provider call. */
  readonly children: StepView[];
}

export interface RunView {
  readonly id: string;
  readonly anchor: string;
  readonly qualities: { readonly name: string; readonly value: string }[];
  readonly steps: StepView[];
}

export interface TalkView {
  readonly id: string;
  readonly anchor: string;
  /** 1-based, in the stream. */
  readonly number: number;
  readonly epoch: string;
  readonly startedBy: string;
  readonly from?: string;
  readonly to?: string;
  readonly start?: EvidenceView;
  readonly runs: RunView[];
  /** Steps directly under the talk, outside any run. */
  readonly loose: StepView[];
  readonly links: LinkView[];
  /** Every evidence key (`seq:row`) of its steps, to place fork points. */
  readonly keys: string[];
}

export interface EpochView {
  readonly id: string;
  readonly anchor: string;
  readonly number: number;
  /** The boundary and summary steps of the epoch, and anything else under it that is not a talk, but a boundary shown in a talk (boundaryIn). */
  readonly steps: StepView[];
  readonly links: LinkView[];
  /** The talk that shows the epoch's boundary, right before its summary, when the runtime compacted while that talk's agent worked. */
  readonly boundaryIn?: string;
}

export interface StreamView {
  readonly id: string;
  /** `main`, or a child agent's stream name. */
  readonly name: string;
  readonly child: boolean;
  readonly label?: string;
  /** The call that started a child stream, when a `starts` relation names one. */
  readonly startedBy?: string;
  /** A link to that call, labelled in plain words for the page's header. */
  readonly starter?: LinkView;
  readonly epochs: EpochView[];
  readonly talks: TalkView[];
  readonly links: LinkView[];
}
