// The body of a conversation, branch or stream page: each talk as a
// transcript (the person's prompt, the assistant's turns with their prose
// and tool cards, the runtime's notices), rendered at build time only (no
// client code). Each step's evidence and qualifications sit in a small fold
// of their own (evidence-html.ts). Every function here makes markup from
// the page model with `html` (html.ts), which escapes every string of the
// model; the only other markup is shiki's, which escapes the code it
// wraps, and markdown-it's, which escapes every character of the text it
// renders (data/markdown.ts).

import { markdownHtml } from '../data/markdown.ts';
import { bytes, counted, firstLine, lineCount, runtimeLine, tokensShown } from '../data/shown-text.ts';
import { modelName } from '../data/facts.ts';
import type { EpochView, LinkView, PartView, Segment, StepView, TalkView } from '../data/views.ts';
import { linksFoldHtml, linksHtml, stepFoldHtml, talkFoldHtml } from './evidence-html.ts';
import { attribute, contentText, flag, html, preStart, trusted, type Html } from './html.ts';
import { toolCardHtml } from './tools.ts';

export interface TalksProps {
  readonly talks: TalkView[];
  readonly epochBefore: Map<string, EpochView>;
  readonly forksAfter: Map<string, LinkView[]>;
  /** From this page to the site root, and to the export root (where the bundle is). */
  readonly root: string;
}

/** The talks as HTML: each under the compaction that comes before it, if any, and followed by the branches that leave from it. */
export function talksHtml({ talks, epochBefore, forksAfter, root }: TalksProps): string {
  return contentText(
    talks.map((talk) => {
      const epoch = epochBefore.get(talk.id);
      const forks = forksAfter.get(talk.id);
      return html`<div>${epoch && epochHtml(epoch, root)}<section class="talk" id="${talk.anchor}" aria-label="Talk ${talk.number}">${talk.loose.map((step) => stepHtml(step, root))}${talk.runs.map(
        (run) => html`<div class="run" id="${run.anchor}">${run.steps.map((step) => stepHtml(step, root))}</div>`,
      )}${talk.links.length > 0 && talkFoldHtml(talk, root)}</section>${forks && html`<nav class="forks" aria-label="branches from here"><strong>The conversation branches here:</strong>${linksHtml(forks, root)}</nav>`}</div>`;
    }),
  );
}

/** A compaction: a full-width divider, its summary folded beneath. */
function epochHtml(epoch: EpochView, root: string): Html {
  const boundary = epoch.steps.find((step) => step.kind === 'epoch.boundary');
  const compacted = epoch.number > 1 || boundary !== undefined;
  return html`<section class="epoch" id="${epoch.anchor}" aria-label="${compacted ? 'Conversation compacted' : 'Start of the conversation'}">${
    compacted && html`<p class="compaction" role="separator">Conversation compacted${boundary?.time && html` at ${timeHtml(boundary.time)}`}: the model continues from a summary</p>`
  }${epoch.steps.map((step) => stepHtml(step, root))}${epoch.links.length > 0 && compacted && linksFoldHtml(epoch.links, root)}</section>`;
}

/**
 * What the runtime did, in plain words: a reader of the transcript is not
 * expected to know the model's step kinds. A Map: the kind is read from the
 * bundle, and no kind may find a property of an object's prototype.
 */
const RUNTIME_WORDS: ReadonlyMap<string, string> = new Map(Object.entries({
  'context.injection': 'Context added by the runtime',
  'turn.duration': 'Turn finished',
  'runtime.notification': 'Background work finished',
  'agent.launch_ack': 'Subagent started',
  'control.command': 'Local command',
  'control.interrupt': 'Interrupted',
  'error.api': 'Request to the model failed',
  'message.synthetic': 'Message made by the client, not the model',
  'epoch.boundary': 'Compaction',
  'epoch.summary': 'Summary carried into the new context',
}));

/** The text of one part as shown: its segments are pieces of it, in order. */
export function partText(part: PartView): string {
  return part.segments.map((segment) => segment.text).join('');
}

/** The text of parts as shown, a part to a line. */
function textOf(parts: readonly PartView[]): string {
  return parts.flatMap((part) => part.segments.map((segment) => segment.text)).join('\n');
}

/** The original size of parts, whatever of them is held. */
function bytesOf(parts: readonly PartView[]): number {
  return parts.reduce((sum, part) => sum + part.bytes, 0);
}

/**
 * A prompt longer than this many lines, or characters, is folded, with its
 * first line and its size: a pasted log or file. The characters are about
 * as many lines of a wide screen; a page pasted as one line (HTML, minified
 * code) wraps into many more on a phone.
 */
const LONG_PROMPT_LINES = 60;
const LONG_PROMPT_CHARACTERS = 6000;

/**
 * A prompt's parts: the runtime's context notes, then what was typed, folded
 * when it is long (LONG_PROMPT_LINES, LONG_PROMPT_CHARACTERS), so that the
 * turns after a pasted log are not pages away. A link to the prompt opens
 * the fold (public/page.js).
 */
function promptPartsHtml(parts: PartView[], root: string): Html {
  const notes = parts.filter((part) => part.context !== undefined);
  const typed = parts.filter((part) => part.context === undefined);
  const text = textOf(typed);
  const lines = lineCount(text);
  if (lines <= LONG_PROMPT_LINES && text.length <= LONG_PROMPT_CHARACTERS) return partsHtml(parts, root);
  const size = bytes(bytesOf(typed));
  return html`${partsHtml(notes, root)}<details class="prompt-long"><summary><span class="first-line">${firstLine(text)}</span> <span class="size">(${counted(lines, 'line', 'lines')}, ${size})</span></summary>${partsHtml(typed, root)}</details>`;
}

/** A part of one short line as a reader reads it, with its runtime context's words; undefined for any other part. */
function wholeReading(part: PartView): string | undefined {
  if (part.state !== 'available' || part.segments.length === 0) return undefined;
  const text = partText(part).trim();
  if (text === '' || text.includes('\n')) return undefined;
  return part.context !== undefined ? `${part.context}: ${text}` : text;
}

/** Runtime steps shown open: short, and they change what the reader makes of the turns around them. */
const OPEN_RUNTIME = new Set(['control.interrupt', 'error.api', 'message.synthetic']);

/**
 * A step as a reader sees it. `withinTurn` is for the replies of an
 * assistant turn, whose evidence its turn's fold holds (stepFoldHtml).
 */
export function stepHtml(step: StepView, root: string, withinTurn = false): Html {
  const injected = step.flags.includes('injected');
  if (step.kind === 'message.external' && !injected) {
    // In a subagent's transcript the prompt comes from the agent that started it, not from the person.
    const fromAgent = step.flags.includes('sidechain');
    return html`<article class="step msg ${fromAgent ? 'parent-agent' : 'human'}" id="${step.anchor}"><header class="who"><span class="role">${fromAgent ? 'Parent agent' : 'You'}</span>${step.time && timeHtml(step.time)}${stepFoldHtml(step, root)}</header>${promptPartsHtml(step.parts, root)}</article>`;
  }
  if (step.kind === 'llm.call') {
    // One fold per turn: a reply's own beside the turn's would be a second "evidence" under its text.
    const replies = step.children.filter((child) => child.kind === 'message.assistant' && !isEmptyReply(child));
    return html`<article class="step turn assistant" id="${step.anchor}"><header class="who"><span class="role">Assistant</span>${turnFactsHtml(step)}${stepFoldHtml(step, root, replies)}</header>${step.parts.length > 0 && partsHtml(step.parts, root)}${step.children.map((child) => stepHtml(child, root, true))}</article>`;
  }
  if (step.kind === 'message.assistant') {
    // A reply with no text of its own (its provider call's fold holds the same rows) shows nothing but its anchor.
    if (isEmptyReply(step)) return html`<div class="step prose-step" id="${step.anchor}"></div>`;
    return html`<div class="step prose-step" id="${step.anchor}">${partsHtml(step.parts, root)}${!withinTurn && stepFoldHtml(step, root)}</div>`;
  }
  if (step.kind === 'thinking') {
    const text = textOf(step.parts);
    const size = bytesOf(step.parts);
    // A source may keep a thinking block's signature and not its text: "0 B" would read as an empty thought.
    const held = step.parts.some((part) => part.state !== 'unavailable');
    return html`<details class="step thinking" id="${step.anchor}"><summary><span class="label">Thinking</span> <span class="size">${held ? bytes(size) : 'not held by the source'}</span> <span class="first-line">${firstLine(text)}</span></summary>${partsHtml(step.parts, root)}${stepFoldHtml(step, root)}</details>`;
  }
  if (step.kind === 'tool' || step.kind === 'agent.call') return toolCardHtml(step, root);
  const words = injected ? 'Context added by the runtime' : (RUNTIME_WORDS.get(step.kind) ?? 'Runtime record');
  const text = textOf(step.parts);
  const size = bytesOf(step.parts);
  const line = text ? runtimeLine(text, step.parts.find((part) => part.context !== undefined)?.context) : '';
  // A part its summary line already shows whole is not shown again below it.
  const below = step.parts.filter((part) => line === '' || wholeReading(part) !== line);
  return html`<details class="step runtime" id="${step.anchor}"${flag('open', OPEN_RUNTIME.has(step.kind))}><summary><span class="label">${words}</span>${step.time && timeHtml(step.time)}${size > 0 && html`<span class="size">${bytes(size)}</span>`}${line && html`<span class="first-line">${line}</span>`}</summary>${partsHtml(below, root)}${step.children.map((child) => stepHtml(child, root))}${stepFoldHtml(step, root)}</details>`;
}

/** Whether a reply has no text of its own to show. */
function isEmptyReply(step: StepView): boolean {
  return step.parts.every((part) => part.state === 'available' && part.segments.every((segment) => segment.text.trim() === ''));
}

/** An assistant turn's model, tokens and time, on one line. */
function turnFactsHtml(step: StepView): Html {
  const id = step.qualities.find((quality) => quality.name === 'model')?.value;
  const model = id !== undefined ? modelName(id) : undefined;
  const tokens = tokensShown(step.usage);
  return html`<span class="turn-facts">${model && html`<span class="model" title="${model.id}">${model.shown}</span>`}${tokens && html`<span class="tokens" title="tokens of this call: ${tokens.detail}">${tokens.shown}</span>`}${step.time && timeHtml(step.time)}</span>`;
}

/** A time of the transcript, shown as its time of day, whole in its title. */
export function timeHtml(value: string): Html {
  const shown = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)/.exec(value)?.[1] ?? value;
  return html`<time class="when" dateTime="${value}" title="${value}">${shown}</time>`;
}

/** The parts of a step, in order (partHtml); `root` is the way from the page to the site's root. */
export function partsHtml(parts: readonly PartView[], root: string): Html {
  return html`${parts.map((part) => partHtml(part, root))}`;
}

/**
 * One part: prose as markdown, code highlighted, an image as an image (mediaHtml),
 * anything else as text, long content folded after its first line.
 */
export function partHtml(part: PartView, root: string): Html {
  if (part.context !== undefined) return html`<p class="part context-note"><span class="context-label">${part.context}:</span> ${partText(part)}</p>`;
  if (part.kind === 'media') return mediaHtml(part, root);
  const notes = partNotesHtml(part);
  if (part.segments.length === 0) return html`<div class="part p-${part.kind}">${notes}</div>`;
  const content = part.kind === 'text' || part.kind === 'reasoning' ? proseHtml(part.segments) : segmentsHtml(part.segments);
  if (part.long && part.kind !== 'reasoning' && part.kind !== 'text') {
    return html`<details class="part p-${part.kind} long"><summary><span class="first-line">${firstLine(textOf([part]))}</span> <span class="size">(${bytes(part.bytes)})</span></summary>${content}${notes}</details>`;
  }
  return html`<div class="part p-${part.kind}">${content}${notes}</div>`;
}

/**
 * A medium (an image pasted into a prompt, a screenshot a tool returned): an
 * image file of the site, loaded as it nears the view, as wide as the column
 * at most, with the room its header states kept for it, and a link to it
 * that opens it at full size, with JavaScript or without; or, when the site
 * does not show it (data/parts.ts), its type, its size and why not.
 */
function mediaHtml(part: PartView, root: string): Html {
  const { image } = part;
  const named = `${part.label ?? 'media'}, ${bytes(part.bytes)}`;
  if (image === undefined) return html`<div class="part p-media"><p class="media-note s-${part.state}"><span class="state">${named}: not shown</span>${part.notShown !== undefined && `: ${part.notShown}`}</p></div>`;
  const href = `${root}${image.file}`;
  const size = image.width !== undefined ? `, ${image.width} × ${image.height} pixels` : '';
  return html`<figure class="part p-media image"><a class="image-link" href="${href}" title="Open the image at full size"><img src="${href}" alt="${image.alt}"${attribute('width', image.width)}${attribute('height', image.height)} loading="lazy" decoding="async"></a><figcaption>${named}${size}</figcaption></figure>`;
}

const STATE_WORDS: Record<PartView['state'], string> = { available: 'Held whole', redacted: 'Secrets taken out', truncated: 'Cut short in the source', unavailable: 'Not held by the source' };

/** What a reader must know about a part's content: redacted, cut, unavailable; nothing when it is all there. */
export function partNotesHtml(part: PartView): Html | undefined {
  const notes: string[] = [];
  // The state in the glossary's word, with the size it had and what a redaction took out of it.
  if (part.state !== 'available') notes.push(`${STATE_WORDS[part.state]}; content state: ${part.state}, ${bytes(part.bytes)}${part.removed !== undefined ? ` (${bytes(part.removed)} removed)` : ''}`);
  if (part.shownBytes < part.heldBytes) notes.push(`the first ${bytes(part.shownBytes)} of ${bytes(part.heldBytes)} shown; the whole is in the evidence`);
  if (notes.length === 0) return undefined;
  const text = notes.join('; ');
  return html`<p class="part-note s-${part.state}">${text[0]!.toUpperCase()}${text.slice(1)}</p>`;
}

/** Prose as markdown, with its fenced code highlighted. */
function proseHtml(segments: readonly Segment[]): Html {
  return html`${segments.map((segment) => (segment.language === undefined ? html`<div class="markdown">${trusted(markdownHtml(segment.text))}</div>` : codeHtml(segment)))}`;
}

function segmentsHtml(segments: readonly Segment[]): Html {
  return html`${segments.map(codeHtml)}`;
}

/**
 * About as many lines of code as the screen's box shows before it scrolls
 * (public/site.css, `pre`): on paper, where nothing scrolls, code longer
 * than this is cut after them, and says so.
 */
export const CODE_LINES_ON_PAPER = 30;

/** A segment as code, highlighted when the highlighter gave it markup, else as text; cut on paper when long (CODE_LINES_ON_PAPER). */
export function codeHtml(segment: Segment): Html {
  const lines = lineCount(segment.text);
  const cut = lines > CODE_LINES_ON_PAPER;
  const note = cut && html`<p class="print-only cut-note">Cut on paper after about ${CODE_LINES_ON_PAPER} lines of ${lines}; the page on screen holds every line.</p>`;
  const paper = cut ? ' cut-on-paper' : '';
  if (segment.html !== undefined) return html`<pre class="code${paper}"${attribute('data-language', segment.language)}>${preStart(segment.html)}${trusted(segment.html)}</pre>${note}`;
  return html`<pre class="${segment.language ? 'code' : 'text'}${paper}">${preStart(segment.text)}${segment.text}</pre>${note}`;
}
