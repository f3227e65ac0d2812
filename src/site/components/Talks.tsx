// The body of a conversation, branch or stream page: talks, runs and steps,
// rendered at build time only (no client code). React escapes every string;
// the only raw HTML is shiki's, which escapes the code it wraps.

import type { ReactNode } from 'react';
import type { EpochView, EvidenceView, LinkView, PartView, StepView, TalkView } from '../data/views.ts';

export interface TalksProps {
  readonly talks: TalkView[];
  readonly epochBefore: Map<string, EpochView>;
  readonly forksAfter: Map<string, LinkView[]>;
  /** From this page to the site root, and to the export root (where the bundle is). */
  readonly root: string;
}

export function Talks({ talks, epochBefore, forksAfter, root }: TalksProps) {
  return (
    <>
      {talks.map((talk) => {
        const epoch = epochBefore.get(talk.id);
        const forks = forksAfter.get(talk.id);
        return (
          <div key={talk.id}>
            {epoch && <Epoch epoch={epoch} root={root} />}
            <section className="talk" id={talk.anchor}>
              <h2>
                Talk {talk.number} <Badge name="started by" value={talk.startedBy} />
                {talk.from && <time className="when">{talk.from}</time>}
                {talk.start && <Evidence refs={[talk.start]} root={root} />}
              </h2>
              <Links links={talk.links} root={root} />
              {talk.loose.map((step) => (
                <Step key={step.id} step={step} root={root} />
              ))}
              {talk.runs.map((run) => (
                <div className="run" id={run.anchor} key={run.id}>
                  <div className="run-head">
                    run {run.qualities.map((quality) => <Badge key={quality.name} name={quality.name} value={quality.value} />)}
                  </div>
                  {run.steps.map((step) => (
                    <Step key={step.id} step={step} root={root} />
                  ))}
                </div>
              ))}
            </section>
            {forks && (
              <nav className="forks" aria-label="branches that leave here">
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

function Epoch({ epoch, root }: { epoch: EpochView; root: string }) {
  return (
    <section className="epoch" id={epoch.anchor}>
      <h2>Epoch {epoch.number}</h2>
      <Links links={epoch.links} root={root} />
      {epoch.steps.map((step) => (
        <Step key={step.id} step={step} root={root} />
      ))}
    </section>
  );
}

const QUIET_KINDS = new Set(['context.injection', 'turn.duration', 'runtime.notification', 'agent.launch_ack']);

export function Step({ step, root }: { step: StepView; root: string }) {
  const quiet = QUIET_KINDS.has(step.kind) || step.flags.includes('injected');
  const classes = ['step', `k-${step.kind.replace('.', '-')}`, quiet ? 'quiet' : '', step.flags.includes('synthetic') || step.kind === 'message.synthetic' ? 'synthetic' : ''].filter(Boolean).join(' ');
  const head = (
    <div className="step-head">
      <span className="kind">{step.kind}</span>
      {step.toolName && <code className="tool">{step.toolName}</code>}
      {(step.kind === 'message.synthetic' || step.flags.includes('synthetic')) && <Badge name="synthetic" value="made by the client, not the model" />}
      {step.flags.includes('injected') && <Badge name="injected" value="context the harness added" />}
      {step.qualities.map((quality) => (
        <Badge key={quality.name} name={quality.name} value={quality.value} />
      ))}
      {step.usage && <Usage usage={step.usage} fragments={step.fragments} />}
      {step.time && <time className="when">{step.time}</time>}
      <Evidence refs={step.evidence} root={root} />
    </div>
  );
  const body = (
    <>
      <Links links={step.links} root={root} />
      {step.unresolved.map((entry, index) => (
        <p className="unresolved" key={index}>
          unresolved {entry.kind} ({entry.state}): {entry.meaning}
        </p>
      ))}
      {step.parts.map((part, index) => (
        <Part key={index} part={part} />
      ))}
      {step.children.map((child) => (
        <Step key={child.id} step={child} root={root} />
      ))}
    </>
  );
  return (
    <div className={classes} id={step.anchor}>
      {quiet ? (
        <details>
          <summary>{head}</summary>
          {body}
        </details>
      ) : (
        <>
          {head}
          {body}
        </>
      )}
    </div>
  );
}

export function Part({ part }: { part: PartView }) {
  const state = (
    <span className={`state s-${part.state}`}>
      {part.kind}
      {part.label ? ` ${part.label}` : ''}: {part.state}, {bytes(part.bytes)}
      {part.removed !== undefined ? ` (${bytes(part.removed)} removed)` : ''}
      {part.shownBytes < part.heldBytes ? `; the first ${bytes(part.shownBytes)} shown, the rest is in the landed record` : ''}
      {part.failed === true ? '; failed' : part.failed === false ? '; succeeded' : ''}
    </span>
  );
  const content = part.segments.map((segment, index) => {
    if (segment.html !== undefined) return <pre className="code" key={index} data-language={segment.language} dangerouslySetInnerHTML={{ __html: segment.html }} />;
    return (
      <pre className={segment.language ? 'code' : 'text'} key={index}>
        {segment.text}
      </pre>
    );
  });
  if (part.segments.length === 0) return <div className={`part p-${part.kind}`}>{state}</div>;
  if (part.long || part.kind === 'reasoning') {
    return (
      <details className={`part p-${part.kind}`}>
        <summary>{state}</summary>
        {content}
      </details>
    );
  }
  return (
    <div className={`part p-${part.kind}`}>
      {state}
      {content}
    </div>
  );
}

function Usage({ usage, fragments }: { usage: NonNullable<StepView['usage']>; fragments: number | undefined }) {
  return (
    <span className="usage" title="tokens: input, output, cache read, cache write">
      {fragments !== undefined ? `${fragments} fragments · ` : ''}in {usage.input ?? '–'} · out {usage.output ?? '–'} · cache read {usage.cache_read ?? '–'} · cache write {usage.cache_write ?? '–'}
    </span>
  );
}

export function Badge({ name, value }: { name: string; value: string }) {
  return (
    <span className={`badge b-${value.replace(/[^a-z_]/g, '')}`}>
      {name}: {value}
    </span>
  );
}

export function Links({ links, root }: { links: LinkView[]; root: string }) {
  if (links.length === 0) return null;
  return (
    <ul className="links">
      {links.map((link, index) => (
        <li key={index}>
          {link.href ? <a href={`${root}${link.href}`}>{link.label}</a> : <span>{link.label} (on no page)</span>}
          {link.quality && <Badge name="correlation" value={link.quality} />}
          {link.via && <span className="via"> via {link.via}</span>}
        </li>
      ))}
    </ul>
  );
}

function Evidence({ refs, root }: { refs: EvidenceView[]; root: string }): ReactNode {
  return (
    <span className="evidence">
      {refs.map((ref, index) =>
        ref.file ? (
          <a key={index} href={`${root}../${ref.file}`} title={`landed record: row ${ref.row} of ${ref.file}`}>
            {`{seq ${ref.seq}, row ${ref.row}}`}
          </a>
        ) : (
          <span key={index}>{`{seq ${ref.seq}, row ${ref.row}} (landed file not in the bundle)`}</span>
        ),
      )}
    </span>
  );
}

export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KB`;
  return `${(count / 1024 / 1024).toFixed(1)} MB`;
}
