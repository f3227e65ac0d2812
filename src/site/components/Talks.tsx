// The body of a conversation, branch or stream page: each talk as a
// transcript (the person's prompt, the assistant's turns with their prose
// and tool cards, the runtime's notices), rendered at build time only (no
// client code). Each step's evidence and qualifications sit in a small fold
// of their own, made as HTML text by evidence-html.ts, which escapes every
// string the way React does. React escapes every other string; the only
// other raw HTML is shiki's, which escapes the code it wraps, and
// markdown-it's, which escapes every character of the text it renders
// (data/markdown.ts).

import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { markdownHtml } from '../data/markdown.ts';
import { bytes, counted, firstLine, lineCount, runtimeLine, tokensShown } from '../data/shown-text.ts';
import { modelName } from '../data/facts.ts';
import type { EpochView, LinkView, PartView, Segment, StepView, TalkView } from '../data/views.ts';
import { foldInnerHtml, linkItemsHtml, linksHtml, stepFoldInnerHtml, talkFoldInnerHtml } from './evidence-html.ts';
import { ToolCard } from './Tools.tsx';

export { bytes };

export interface TalksProps {
  readonly talks: TalkView[];
  readonly epochBefore: Map<string, EpochView>;
  readonly forksAfter: Map<string, LinkView[]>;
  /** From this page to the site root, and to the export root (where the bundle is). */
  readonly root: string;
}

/**
 * The talks as HTML, rendered here rather than as a component of the page:
 * Astro searches the HTML of every component it renders for slots to take
 * out, which a page's talks, most of its bytes, never hold, and that search
 * was some 3.5% of a renderer's time (docs/performance.md).
 */
export function talksHtml(props: TalksProps): string {
  return renderToStaticMarkup(<Talks {...props} />);
}

function Talks({ talks, epochBefore, forksAfter, root }: TalksProps) {
  return (
    <>
      {talks.map((talk) => {
        const epoch = epochBefore.get(talk.id);
        const forks = forksAfter.get(talk.id);
        return (
          <div key={talk.id}>
            {epoch && <Epoch epoch={epoch} root={root} />}
            <section className="talk" id={talk.anchor} aria-label={`Talk ${talk.number}`}>
              {talk.loose.map((step) => (
                <Step key={step.id} step={step} root={root} />
              ))}
              {talk.runs.map((run) => (
                <div className="run" id={run.anchor} key={run.id}>
                  {run.steps.map((step) => (
                    <Step key={step.id} step={step} root={root} />
                  ))}
                </div>
              ))}
              {talk.links.length > 0 && <Fold inner={talkFoldInnerHtml(talk, root)} />}
            </section>
            {forks && (
              <nav className="forks" aria-label="other paths from here">
                <strong>The conversation forks here:</strong>
                <Links links={forks} root={root} />
              </nav>
            )}
          </div>
        );
      })}
    </>
  );
}

/** A compaction: a full-width divider, its summary folded beneath. */
function Epoch({ epoch, root }: { epoch: EpochView; root: string }) {
  const boundary = epoch.steps.find((step) => step.kind === 'epoch.boundary');
  return (
    <section className="epoch" id={epoch.anchor} aria-label={epoch.number > 1 || boundary ? 'Conversation compacted' : 'Start of the conversation'}>
      {(epoch.number > 1 || boundary) && (
        <p className="compaction" role="separator">
          Conversation compacted{boundary?.time ? <> at <Time value={boundary.time} /></> : ''}: the model continues from a summary
        </p>
      )}
      {epoch.steps.map((step) => (
        <Step key={step.id} step={step} root={root} />
      ))}
      {epoch.links.length > 0 && (epoch.number > 1 || boundary) && (
        <Fold inner={foldInnerHtml('links', linksHtml(epoch.links, root))} />
      )}
    </section>
  );
}

/** What the runtime did, in plain words: a reader of the transcript is not expected to know the model's step kinds. */
const RUNTIME_WORDS: Record<string, string> = {
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
};

/** The text of one part as shown: its segments are pieces of it, in order. */
export function partText(part: PartView): string {
  return part.segments.map((segment) => segment.text).join('');
}

/** The text of parts as shown, a part to a line. */
function textOf(parts: readonly PartView[]): string {
  return parts.flatMap((part) => part.segments.map((segment) => segment.text)).join('\n');
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
function PromptParts({ parts }: { parts: PartView[] }): ReactNode {
  const notes = parts.filter((part) => part.context !== undefined);
  const typed = parts.filter((part) => part.context === undefined);
  const text = textOf(typed);
  const lines = lineCount(text);
  if (lines <= LONG_PROMPT_LINES && text.length <= LONG_PROMPT_CHARACTERS) return <Parts parts={parts} />;
  return (
    <>
      <Parts parts={notes} />
      <details className="prompt-long">
        <summary>
          <span className="first-line">{firstLine(text)}</span> <span className="size">({counted(lines, 'line', 'lines')}, {bytes(typed.reduce((sum, part) => sum + part.bytes, 0))})</span>
        </summary>
        <Parts parts={typed} />
      </details>
    </>
  );
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
 * assistant turn, whose evidence its turn's fold holds (Evidence).
 */
export function Step({ step, root, withinTurn = false }: { step: StepView; root: string; withinTurn?: boolean }): ReactNode {
  const injected = step.flags.includes('injected');
  if (step.kind === 'message.external' && !injected) {
    // In a subagent's transcript the prompt comes from the agent that started it, not from the person.
    const fromAgent = step.flags.includes('sidechain');
    return (
      <article className={`step msg ${fromAgent ? 'parent-agent' : 'human'}`} id={step.anchor}>
        <header className="who">
          <span className="role">{fromAgent ? 'Parent agent' : 'You'}</span>
          {step.time && <Time value={step.time} />}
          <Evidence step={step} root={root} />
        </header>
        <PromptParts parts={step.parts} />
      </article>
    );
  }
  if (step.kind === 'llm.call') {
    // One fold per turn: a reply's own beside the turn's would be a second "evidence" under its text.
    const replies = step.children.filter((child) => child.kind === 'message.assistant' && !isEmptyReply(child));
    return (
      <article className="step turn assistant" id={step.anchor}>
        <header className="who">
          <span className="role">Assistant</span>
          <TurnFacts step={step} />
          <Evidence step={step} root={root} also={replies} />
        </header>
        {step.parts.length > 0 && <Parts parts={step.parts} />}
        {step.children.map((child) => (
          <Step key={child.id} step={child} root={root} withinTurn />
        ))}
      </article>
    );
  }
  if (step.kind === 'message.assistant') {
    // A reply with no text of its own (its provider call's fold holds the same rows) shows nothing but its anchor.
    if (isEmptyReply(step)) return <div className="step prose-step" id={step.anchor} />;
    return (
      <div className="step prose-step" id={step.anchor}>
        <Parts parts={step.parts} />
        {!withinTurn && <Evidence step={step} root={root} />}
      </div>
    );
  }
  if (step.kind === 'thinking') {
    const text = textOf(step.parts);
    const size = step.parts.reduce((sum, part) => sum + part.bytes, 0);
    // A source may keep a thinking block's signature and not its text: "0 B" would read as an empty thought.
    const held = step.parts.some((part) => part.state !== 'unavailable');
    return (
      <details className="step thinking" id={step.anchor}>
        <summary>
          <span className="label">Thinking</span> <span className="size">{held ? bytes(size) : 'not held by the source'}</span> <span className="first-line">{firstLine(text)}</span>
        </summary>
        <Parts parts={step.parts} />
        <Evidence step={step} root={root} />
      </details>
    );
  }
  if (step.kind === 'tool' || step.kind === 'agent.call') return <ToolCard step={step} root={root} />;
  const words = injected ? 'Context added by the runtime' : (RUNTIME_WORDS[step.kind] ?? 'Runtime record');
  const text = textOf(step.parts);
  const size = step.parts.reduce((sum, part) => sum + part.bytes, 0);
  const line = text ? runtimeLine(text, step.parts.find((part) => part.context !== undefined)?.context) : '';
  // A part its summary line already shows whole is not shown again below it.
  const below = step.parts.filter((part) => line === '' || wholeReading(part) !== line);
  return (
    <details className="step runtime" id={step.anchor} open={OPEN_RUNTIME.has(step.kind)}>
      <summary>
        <span className="label">{words}</span>
        {step.time && <Time value={step.time} />}
        {size > 0 && <span className="size">{bytes(size)}</span>}
        {line && <span className="first-line">{line}</span>}
      </summary>
      <Parts parts={below} />
      {step.children.map((child) => (
        <Step key={child.id} step={child} root={root} />
      ))}
      <Evidence step={step} root={root} />
    </details>
  );
}

/** Whether a reply has no text of its own to show. */
function isEmptyReply(step: StepView): boolean {
  return step.parts.every((part) => part.state === 'available' && part.segments.every((segment) => segment.text.trim() === ''));
}

/** An assistant turn's model, tokens and time, on one line. */
function TurnFacts({ step }: { step: StepView }) {
  const id = step.qualities.find((quality) => quality.name === 'model')?.value;
  const model = id !== undefined ? modelName(id) : undefined;
  const tokens = tokensShown(step.usage);
  return (
    <span className="turn-facts">
      {model && (
        <span className="model" title={model.id}>
          {model.shown}
        </span>
      )}
      {tokens && (
        <span className="tokens" title={`tokens of this call: ${tokens.detail}`}>
          {tokens.shown}
        </span>
      )}
      {step.time && <Time value={step.time} />}
    </span>
  );
}

export function Time({ value }: { value: string }) {
  const shown = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)/.exec(value)?.[1] ?? value;
  return (
    <time className="when" dateTime={value} title={value}>
      {shown}
    </time>
  );
}

/** The parts of a step: prose as markdown, code highlighted, anything else as text, long content folded after its first line. */
export function Parts({ parts }: { parts: PartView[] }) {
  return (
    <>
      {parts.map((part, index) => (
        <Part key={index} part={part} />
      ))}
    </>
  );
}

export function Part({ part }: { part: PartView }) {
  if (part.context !== undefined) {
    return (
      <p className="part context-note">
        <span className="context-label">{part.context}:</span> {partText(part)}
      </p>
    );
  }
  const content = part.kind === 'text' || part.kind === 'reasoning' ? <Prose segments={part.segments} /> : <Segments segments={part.segments} />;
  const notes = <PartNotes part={part} />;
  if (part.segments.length === 0) return <div className={`part p-${part.kind}`}>{notes ?? <span className="state">{part.kind === 'media' ? `${part.label ?? 'media'}, ${bytes(part.bytes)}: not shown` : `${part.state}, ${bytes(part.bytes)}`}</span>}</div>;
  if (part.long && part.kind !== 'reasoning' && part.kind !== 'text') {
    const text = part.segments.map((segment) => segment.text).join('\n');
    return (
      <details className={`part p-${part.kind} long`}>
        <summary>
          <span className="first-line">{firstLine(text)}</span> <span className="size">({bytes(part.bytes)})</span>
        </summary>
        {content}
        {notes}
      </details>
    );
  }
  return (
    <div className={`part p-${part.kind}`}>
      {content}
      {notes}
    </div>
  );
}

const STATE_WORDS: Record<PartView['state'], string> = { available: 'Held whole', redacted: 'Secrets taken out', truncated: 'Cut short in the source', unavailable: 'Not held by the source' };

/** What a reader must know about a part's content: redacted, cut, unavailable; nothing when it is all there. */
function PartNotes({ part }: { part: PartView }): ReactNode {
  const notes: string[] = [];
  // The state in the glossary's word, with the size it had and what a redaction took out of it.
  if (part.state !== 'available') notes.push(`${STATE_WORDS[part.state]}; content state: ${part.state}, ${bytes(part.bytes)}${part.removed !== undefined ? ` (${bytes(part.removed)} removed)` : ''}`);
  if (part.shownBytes < part.heldBytes) notes.push(`the first ${bytes(part.shownBytes)} of ${bytes(part.heldBytes)} shown; the whole is in the evidence`);
  if (notes.length === 0) return null;
  return <p className={`part-note s-${part.state}`}>{notes.join('; ')}</p>;
}

/** Prose as markdown, with its fenced code highlighted. */
function Prose({ segments }: { segments: Segment[] }) {
  return (
    <>
      {segments.map((segment, index) => (segment.language === undefined ? <div className="markdown" key={index} dangerouslySetInnerHTML={{ __html: markdownHtml(segment.text) }} /> : <Code key={index} segment={segment} />))}
    </>
  );
}

export function Segments({ segments }: { segments: Segment[] }) {
  return (
    <>
      {segments.map((segment, index) => (
        <Code key={index} segment={segment} />
      ))}
    </>
  );
}

export function Code({ segment }: { segment: Segment }) {
  if (segment.html !== undefined) return <pre className="code" data-language={segment.language} dangerouslySetInnerHTML={{ __html: segment.html }} />;
  return <pre className={segment.language ? 'code' : 'text'}>{segment.text}</pre>;
}

/** A fold of the evidence and the audit's notes on one item, small and closed, its inside made as HTML (evidence-html.ts). */
function Fold({ inner }: { inner: string }) {
  return <details className="ev" dangerouslySetInnerHTML={{ __html: inner }} />;
}

/**
 * A step's evidence fold: its landed rows, its qualifications, its relations
 * and what is unresolved about it; and those of the steps `also` names
 * (an assistant turn's replies), each under its own kind.
 */
export function Evidence({ step, root, also = [] }: { step: StepView; root: string; also?: readonly StepView[] }) {
  return <Fold inner={stepFoldInnerHtml(step, root, also)} />;
}

/** Links to other steps, talks or paths, the reader's own marked (evidence-html.ts). */
export function Links({ links, root }: { links: LinkView[]; root: string }) {
  if (links.length === 0) return null;
  return <ul className="links" dangerouslySetInnerHTML={{ __html: linkItemsHtml(links, root) }} />;
}
