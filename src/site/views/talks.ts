// The body of a conversation, branch or stream page: each talk as a
// transcript (the person's prompt, the assistant's reply as one block under
// one header with its calls' figures summed, the runtime's notices folded
// into quiet lines), rendered at build time only (no client code). Each
// step's evidence and qualifications sit in a small fold of their own
// (evidence-html.ts), hidden until the page's evidence switch is on. Every
// function here makes markup from the page model with `html` (html.ts),
// which escapes every string of the model; the only other markup is
// shiki's, which escapes the code it wraps, and markdown-it's, which
// escapes every character of the text it renders (models/markdown.ts).

import { markdownHtml } from '../models/markdown.ts';
import { bytes, compactionWords, counted, embeddedJson, firstLine, lineCount, noticeWords, runtimeLine, shortDuration, tokensShown } from '../models/shown-text.ts';
import { jsonValueOf } from '../models/parts.ts';
import { mayHighlight } from '../models/languages.ts';
import type { Usage } from '../../session-data/format.ts';
import { modelName } from '../models/facts.ts';
import type { EpochView, LinkView, PartView, Segment, StepView, TalkView } from '../models/views.ts';
import { linksFoldHtml, linksHtml, stepFoldHtml, talkFoldHtml } from './evidence-html.ts';
import { selfLinkHtml } from './self-link.ts';
import { attribute, flag, html, preStart, trusted, type Html } from './html.ts';
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
  return talks.map((talk) => talkUnitHtml(talkHtml(talk, root), epochBefore.get(talk.id), forksAfter.get(talk.id), root)).join('');
}

/**
 * A talk as it stands on a page: the compaction before it (when it is the
 * first talk of its epoch on the page), the talk (talkHtml), and the
 * branches that leave from it. The talk's own markup is made once for every
 * page that shows it (generator/site-reader.ts cuts pages from its size).
 */
export function talkUnitHtml(talk: string, epoch: EpochView | string | undefined, forks: readonly LinkView[] | undefined, root: string): string {
  const opening = typeof epoch === 'string' ? epoch : epoch && epochHtml(epoch, root).text;
  return `<div>${opening ?? ''}${talk}${forks ? forksHtml(forks, root) : ''}</div>`;
}

/** One talk: its steps, its runs and the fold of its links. */
export function talkHtml(talk: TalkView, root: string): string {
  return html`<section class="talk" id="${talk.anchor}" aria-label="Talk ${talk.number}">${stepsHtml(talk.loose, root)}${talk.runs.map(
    (run) => html`<div class="run" id="${run.anchor}">${stepsHtml(run.steps, root)}</div>`,
  )}${talk.links.length > 0 && talkFoldHtml(talk, root)}</section>`.text;
}

/** The branches that leave from inside a talk, placed after it. */
export function forksHtml(forks: readonly LinkView[], root: string): string {
  return html`<nav class="forks" aria-label="branches from here"><strong>The conversation branches here:</strong>${linksHtml(forks, root)}</nav>`.text;
}

/**
 * The start of an epoch: after a compaction, a full-width divider that says
 * what happened, with the summary carried into the new context folded right
 * under it. A compaction made while a talk's agent worked is shown in that
 * talk instead, where it happened (EpochView.boundaryIn).
 */
export function epochHtml(epoch: EpochView, root: string): Html {
  const boundary = epoch.steps.find((step) => step.kind === 'epoch.boundary');
  const compacted = (epoch.number > 1 || boundary !== undefined) && epoch.boundaryIn === undefined;
  const words = compactionWords(boundary?.notice);
  return html`<section class="epoch" id="${epoch.anchor}" aria-label="${compacted ? words : 'Start of the conversation'}">${compacted && boundaryHtml(boundary, root)}${quietRunsHtml(
    epoch.steps.filter((step) => step !== boundary),
    root,
  )}${epoch.links.length > 0 && compacted && linksFoldHtml(epoch.links, root)}</section>`;
}

/**
 * A compaction's divider: what happened ("Compacted automatically: 173k →
 * 7.9k tokens") and when, standing for the boundary's record when there is
 * one, with its evidence.
 */
function boundaryHtml(boundary: StepView | undefined, root: string): Html {
  const took = boundary?.notice?.ms !== undefined ? `the compaction took ${shortDuration(boundary.notice.ms)}` : undefined;
  // One span: on a phone the words and the time wrap together between the divider's rules.
  const divider = html`<p class="compaction" role="separator"${attribute('title', took)}><span>${compactionWords(boundary?.notice)}${boundary?.time && html` at ${timeHtml(boundary.time)}`}</span></p>`;
  return boundary ? html`<div class="step boundary" id="${boundary.anchor}">${divider}${stepFoldHtml(boundary, root)}</div>` : divider;
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

/** Steps that are not the runtime's: a prompt, the assistant's calls and what they hold, a compaction. */
const NOT_RUNTIME = new Set(['llm.call', 'message.assistant', 'thinking', 'tool', 'agent.call', 'epoch.boundary', 'epoch.summary']);

/** A prompt a person typed (or, on a subagent's page, the agent that started it): it opens a reply. */
function isPrompt(step: StepView): boolean {
  return step.kind === 'message.external' && !step.flags.includes('injected');
}

/**
 * A step the runtime adds quietly (a reminder, a hook, a finished turn, a
 * file it read): it folds into one line with its neighbours. An
 * interruption, a message the client made up, a local command the person
 * ran and a failed request the adapter does not name each keep a line of
 * their own.
 */
function isQuiet(step: StepView): boolean {
  if (step.kind === 'message.external') return step.flags.includes('injected');
  if (NOT_RUNTIME.has(step.kind) || step.kind === 'control.command') return false;
  return !OPEN_RUNTIME.has(step.kind) || (step.kind === 'error.api' && step.notice !== undefined);
}

/**
 * Steps in order, as a reader reads them: each prompt alone; from the first
 * provider call after it to the next prompt, one reply under one header
 * (replyHtml); and every run of quiet runtime steps as one line
 * (quietHtml). The runtime's steps between a prompt and the reply's first
 * call come before the reply; a compaction divides the steps where it
 * happened.
 */
function stepsHtml(steps: readonly StepView[], root: string): Html {
  const shown: Html[] = [];
  let reply: StepView[] | undefined;
  let before: StepView[] = [];
  const flush = (): void => {
    if (before.length > 0) shown.push(quietRunsHtml(before, root));
    if (reply !== undefined) shown.push(replyHtml(reply, root));
    before = [];
    reply = undefined;
  };
  for (const step of steps) {
    if (isPrompt(step) || step.kind === 'epoch.boundary') {
      // A compaction within the talk divides it where it happened, across the page's width.
      flush();
      shown.push(step.kind === 'epoch.boundary' ? boundaryHtml(step, root) : stepHtml(step, root));
    } else if (reply !== undefined) {
      reply.push(step);
    } else if (step.kind === 'llm.call') {
      if (before.length > 0) shown.push(quietRunsHtml(before, root));
      before = [];
      reply = [step];
    } else {
      before.push(step);
    }
  }
  flush();
  return html`${shown}`;
}

/** Steps with each run of quiet runtime steps as one line, the others as they are. */
function quietRunsHtml(steps: readonly StepView[], root: string): Html {
  const shown: Html[] = [];
  let quiet: StepView[] = [];
  const flush = (): void => {
    if (quiet.length > 0) shown.push(quietHtml(quiet, root));
    quiet = [];
  };
  for (const step of steps) {
    if (isQuiet(step)) {
      quiet.push(step);
      continue;
    }
    flush();
    shown.push(step.kind === 'llm.call' ? callHtml(step, root) : stepHtml(step, root));
  }
  flush();
  return html`${shown}`;
}

/**
 * Quiet runtime steps next to each other: one alone is its own line; more
 * are one closed line that counts them and names what they are ("⚙ 6
 * runtime notes: Hook · PostToolUse ×3 · Reminder · task list · Turn took
 * 1 min 32 s"), each step's own line inside it.
 */
function quietHtml(steps: readonly StepView[], root: string): Html {
  if (steps.length === 1) return runtimeHtml(steps[0]!, root);
  const names = new Map<string, number>();
  for (const step of steps) names.set(runtimeName(step), (names.get(runtimeName(step)) ?? 0) + 1);
  const line = [...names].map(([name, times]) => (times > 1 ? `${name} ×${times}` : name)).join(' · ');
  return html`<details class="runtime-group"><summary><span class="label">${counted(steps.length, 'runtime note', 'runtime notes')}</span>${steps[0]!.time && timeHtml(steps[0]!.time)}<span class="first-line">${line}</span></summary>${steps.map((step) => runtimeHtml(step, root))}</details>`;
}

/** What a runtime step is, in a few words: its notice's, else the tag its text is wrapped in, else its kind's. */
function runtimeName(step: StepView): string {
  if (step.notice !== undefined) return noticeWords(step.notice).short;
  const context = step.parts.find((part) => part.context !== undefined)?.context;
  if (context !== undefined) return context;
  return step.flags.includes('injected') ? 'Context added by the runtime' : (RUNTIME_WORDS.get(step.kind) ?? 'Runtime record');
}

/**
 * An assistant's reply between two prompts: one block under one header
 * ("Assistant", its models, the tokens of every call summed, when it
 * started and how long it ran), its calls one after another without a
 * header each, and the runtime's notes among them folded into quiet lines.
 * A call's own figures are in the header's tooltip and, with the page's
 * evidence on, above the call.
 */
function replyHtml(steps: readonly StepView[], root: string): Html {
  const calls = steps.filter((step) => step.kind === 'llm.call');
  return html`<article class="reply assistant"><header class="who"><span class="role">Assistant</span>${replyFactsHtml(calls, steps)}${calls[0] && selfLinkHtml(calls[0].anchor, 'reply')}</header>${quietRunsHtml(steps, root)}</article>`;
}

/** One provider call inside its reply: its own figures and its evidence (shown with the page's evidence), then what it said and did. */
function callHtml(step: StepView, root: string): Html {
  // One fold per call: a reply's own beside the call's would be a second "evidence" under its text.
  const replies = step.children.filter((child) => child.kind === 'message.assistant' && !isEmptyReply(child));
  return html`<div class="step call" id="${step.anchor}"><div class="call-head ev-only">${callFactsHtml(step)}${stepFoldHtml(step, root, replies)}</div>${step.parts.length > 0 && partsHtml(step.parts, root)}${step.children.map((child) => stepHtml(child, root, true))}</div>`;
}

/**
 * A step as a reader sees it. `withinTurn` is for the replies of a provider
 * call, whose evidence its call's fold holds (stepFoldHtml).
 */
export function stepHtml(step: StepView, root: string, withinTurn = false): Html {
  if (isPrompt(step)) {
    // In a subagent's transcript the prompt comes from the agent that started it, not from the person.
    const fromAgent = step.flags.includes('sidechain');
    return html`<article class="step msg ${fromAgent ? 'parent-agent' : 'human'}" id="${step.anchor}"><header class="who"><span class="role">${fromAgent ? 'Parent agent' : 'You'}</span>${step.time && timeHtml(step.time)}${selfLinkHtml(step.anchor, 'prompt')}${stepFoldHtml(step, root)}</header>${promptPartsHtml(step.parts, root)}</article>`;
  }
  if (step.kind === 'llm.call') return replyHtml([step], root);
  if (step.kind === 'message.assistant') {
    // A reply with no text of its own (its provider call's fold holds the same rows) shows nothing but its anchor.
    if (isEmptyReply(step)) return html`<div class="step prose-step" id="${step.anchor}"></div>`;
    return html`<div class="step prose-step" id="${step.anchor}">${partsHtml(step.parts, root)}${!withinTurn && stepFoldHtml(step, root)}</div>`;
  }
  if (step.kind === 'thinking') return thinkingHtml(step, root);
  if (step.kind === 'epoch.boundary') return boundaryHtml(step, root);
  if (step.kind === 'tool' || step.kind === 'agent.call') return toolCardHtml(step, root);
  return runtimeHtml(step, root);
}

/** Whether a step is a thought with no text to show: the source kept its signature only, or nothing. */
function isWithheldThought(step: StepView): boolean {
  return step.kind === 'thinking' && textOf(step.parts).trim() === '';
}

/** How many thoughts of these talks show nothing (isWithheldThought), for the page's audit to say. */
export function withheldThoughts(talks: readonly TalkView[]): number {
  const count = (step: StepView): number => (isWithheldThought(step) ? 1 : 0) + step.children.reduce((sum, child) => sum + count(child), 0);
  return talks.reduce((sum, talk) => sum + [...talk.loose, ...talk.runs.flatMap((run) => run.steps)].reduce((inTalk, step) => inTalk + count(step), 0), 0);
}

/** The most of a thought shown before its fold: its first lines, up to this many, and this many characters. */
const THINKING_LINES = 3;
const THINKING_CHARACTERS = 300;
const THINKING_SLACK = 100;

/**
 * A thought: its first lines shown, the rest folded; one short enough is
 * shown whole. A thought whose text the source did not keep (its signature
 * only) shows nothing; the page's evidence view still shows it, with its
 * landed record.
 */
function thinkingHtml(step: StepView, root: string): Html {
  const text = textOf(step.parts).trim();
  if (isWithheldThought(step)) return html`<div class="step thinking-withheld ev-only" id="${step.anchor}"><span class="label">Thinking, its text not kept by the source</span>${selfLinkHtml(step.anchor, 'thought')}${stepFoldHtml(step, root)}</div>`;
  const lines = text.split('\n');
  let preview = lines.slice(0, THINKING_LINES).join('\n');
  if (preview.length > THINKING_CHARACTERS) preview = preview.slice(0, preview.lastIndexOf(' ', THINKING_CHARACTERS) > THINKING_CHARACTERS / 2 ? preview.lastIndexOf(' ', THINKING_CHARACTERS) : THINKING_CHARACTERS);
  // A thought only a little longer than the preview is shown whole: a fold for its last few words would be more chrome than text.
  if (preview.length === text.length || (lines.length <= THINKING_LINES && text.length <= THINKING_CHARACTERS + THINKING_SLACK)) return html`<div class="step thinking" id="${step.anchor}"><span class="label">Thinking</span>${selfLinkHtml(step.anchor, 'thought')}${partsHtml(step.parts, root)}${stepFoldHtml(step, root)}</div>`;
  return html`<details class="step thinking" id="${step.anchor}"><summary><span class="label">Thinking</span> <span class="preview">${preview.trimEnd()}…</span> <span class="more">show all (${counted(lines.length, 'line', 'lines')}, ${bytes(bytesOf(step.parts))})</span>${selfLinkHtml(step.anchor, 'thought')}</summary>${partsHtml(step.parts, root)}${stepFoldHtml(step, root)}</details>`;
}

/**
 * A step of the runtime on a line of its own: what it is (its notice's
 * words, else its kind's), when, and the first line of what it says; what
 * it holds below when opened. A notice's record is told by its words: the
 * fields it was read from are in the evidence, never shown here.
 */
function runtimeHtml(step: StepView, root: string): Html {
  const injected = step.flags.includes('injected');
  const words = step.notice !== undefined ? noticeWords(step.notice).full : injected ? 'Context added by the runtime' : (RUNTIME_WORDS.get(step.kind) ?? 'Runtime record');
  const parts = step.notice !== undefined ? step.parts.filter((part) => part.kind !== 'data') : step.parts;
  const text = textOf(parts);
  const size = bytesOf(parts);
  const line = text ? runtimeLine(text, parts.find((part) => part.context !== undefined)?.context) : '';
  // A part its summary line already shows whole is not shown again below it.
  const below = parts.filter((part) => line === '' || wholeReading(part) !== line);
  const head = html`<span class="label">${words}</span>${step.time && timeHtml(step.time)}${size > 0 && below.length > 0 && html`<span class="size">${bytes(size)}</span>`}${line && html`<span class="first-line">${line}</span>`}${selfLinkHtml(step.anchor, 'notice')}`;
  // A step that keeps a line of its own, among the quiet ones folded together (isQuiet).
  const classes = `step runtime${isQuiet(step) ? '' : ' alone'}`;
  if (below.length === 0 && step.children.length === 0) return html`<div class="${classes}" id="${step.anchor}"><div class="line">${head}</div>${stepFoldHtml(step, root)}</div>`;
  // Open when what it holds reads as words; an error given as JSON is told by its summary line, the JSON one click away.
  const open = OPEN_RUNTIME.has(step.kind) && !isQuiet(step) && embeddedJson(text) === undefined && jsonValueOf(text) === undefined;
  return html`<details class="${classes}" id="${step.anchor}"${flag('open', open)}><summary>${head}</summary>${partsHtml(below, root)}${step.children.map((child) => stepHtml(child, root))}${stepFoldHtml(step, root)}</details>`;
}

/** Whether a reply has no text of its own to show. */
function isEmptyReply(step: StepView): boolean {
  return step.parts.every((part) => part.state === 'available' && part.segments.every((segment) => segment.text.trim() === ''));
}

/**
 * A reply's figures on its header's line: the models its calls used, their
 * tokens summed (≥ when a call did not say what it used), when it started
 * and how long it ran. Each call's own figures are in the tokens' tooltip.
 */
function replyFactsHtml(calls: readonly StepView[], steps: readonly StepView[]): Html {
  const models = [...new Set(calls.flatMap((call) => call.qualities.filter((quality) => quality.name === 'model').map((quality) => quality.value)))].map(modelName);
  const told = calls.filter((call) => call.usage !== undefined);
  const tokens = tokensShown(sumUsage(told.map((call) => call.usage!)));
  const perCall = calls.map((call, index) => {
    const own = tokensShown(call.usage);
    const model = call.qualities.find((quality) => quality.name === 'model')?.value;
    return `call ${index + 1}${call.time ? ` at ${timeOfDay(call.time)}` : ''}${model ? `, ${modelName(model).shown}` : ''}: ${own ? own.shown : 'tokens not recorded'}`;
  });
  const shownCalls = perCall.length > CALLS_IN_TOOLTIP ? [...perCall.slice(0, CALLS_IN_TOOLTIP), `and ${perCall.length - CALLS_IN_TOOLTIP} more`] : perCall;
  const title = tokens && `tokens of ${counted(calls.length, 'provider call', 'provider calls')}: ${tokens.detail}\n${shownCalls.join('\n')}`;
  const times = steps.flatMap(timesOf).sort();
  const span = times.length > 1 ? Date.parse(times.at(-1)!) - Date.parse(times[0]!) : 0;
  return html`<span class="turn-facts">${models.map((model) => html`<span class="model" title="${model.id}">${model.shown}</span>`)}${
    tokens && html`<span class="tokens" title="${title}">${told.length < calls.length ? '≥ ' : ''}${tokens.shown}</span>`
  }${times[0] && timeHtml(times[0])}${span >= 1000 && html`<span class="span" title="from the first call to the last step before the next prompt">${shortDuration(span)}</span>`}</span>`;
}

/** The most calls a reply's tooltip names one by one. */
const CALLS_IN_TOOLTIP = 40;

/** Every time a step and the steps under it record. */
function timesOf(step: StepView): string[] {
  return [...(step.time !== undefined ? [step.time] : []), ...step.children.flatMap(timesOf)];
}

/** Usages added up, field by field; a field no usage states stays unstated. */
function sumUsage(usages: readonly Usage[]): Usage | undefined {
  if (usages.length === 0) return undefined;
  const sum = (field: keyof Usage): number | undefined => (usages.some((usage) => usage[field] !== undefined) ? usages.reduce((total, usage) => total + (usage[field] ?? 0), 0) : undefined);
  return { input: sum('input'), output: sum('output'), cache_read: sum('cache_read'), cache_write: sum('cache_write') };
}

/** A provider call's own model, tokens and time, on one line. */
function callFactsHtml(step: StepView): Html {
  const id = step.qualities.find((quality) => quality.name === 'model')?.value;
  const model = id !== undefined ? modelName(id) : undefined;
  const tokens = tokensShown(step.usage);
  return html`<span class="turn-facts">${model && html`<span class="model" title="${model.id}">${model.shown}</span>`}${tokens && html`<span class="tokens" title="tokens of this call: ${tokens.detail}">${tokens.shown}</span>`}${step.time && timeHtml(step.time)}</span>`;
}

/** A time of the transcript's time of day, as a page shows it. */
function timeOfDay(value: string): string {
  return /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)/.exec(value)?.[1] ?? value;
}

/** A time of the transcript, shown as its time of day, whole in its title. */
export function timeHtml(value: string): Html {
  return html`<time class="when" dateTime="${value}" title="${value}">${timeOfDay(value)}</time>`;
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
 * does not show it (models/parts.ts), its type, its size and why not.
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

/**
 * A segment as code, plain, which public/page.js highlights when it is
 * first shown (generator/browser-highlight.ts) if it may be (mayHighlight),
 * else as text; cut on paper when long (CODE_LINES_ON_PAPER).
 */
export function codeHtml(segment: Segment): Html {
  const lines = lineCount(segment.text);
  const cut = lines > CODE_LINES_ON_PAPER;
  const note = cut && html`<p class="print-only cut-note">Cut on paper after about ${CODE_LINES_ON_PAPER} lines of ${lines}; the page on screen holds every line.</p>`;
  const paper = cut ? ' cut-on-paper' : '';
  if (mayHighlight(segment.language, segment.text)) return html`<pre class="code${paper}"${attribute('data-language', segment.language)} data-highlight="when-shown">${preStart(segment.text)}${segment.text}</pre>${note}`;
  return html`<pre class="${segment.language ? 'code' : 'text'}${paper}">${preStart(segment.text)}${segment.text}</pre>${note}`;
}
