// A tool use as a card: one line when closed (the tool, what it works on,
// how it ended), and when open its input rendered for what the tool is
// (model/tools.ts: a command, a file, a diff, a checklist, a prompt) and
// what came back. A failed call starts open; a subagent's call starts open
// too, with its prompt folded, so that its transcript's link is in view.

import type { ReactNode } from 'react';
import { bytes, editDiff, lineCount, terminalRuns } from '../data/shown-text.ts';
import type { PartView, StepView } from '../data/views.ts';
import type { ToolDescription } from '../../model/tools.ts';
import { Code, Evidence, Part, partText } from './Talks.tsx';
import { markdownHtml } from '../data/markdown.ts';
import { prose } from '../data/parts.ts';

type Status = 'ok' | 'error' | 'no-result';

const STATUS_WORDS: Record<Status, string> = { ok: '✓ ok', error: '✗ error', 'no-result': '… no result' };

/** Output longer than this many lines is folded after its first line. */
const LONG_OUTPUT_LINES = 20;

export function ToolCard({ step, root }: { step: StepView; root: string }) {
  const call = step.parts.find((part) => part.kind === 'call');
  const results = step.parts.filter((part) => part.kind !== 'call');
  const tool: ToolDescription = call?.tool ?? { kind: 'other' };
  const status: Status = results.length === 0 ? 'no-result' : results.some((part) => part.failed === true) ? 'error' : 'ok';
  const agent = step.kind === 'agent.call' || tool.kind === 'agent';
  const name = step.toolName ?? call?.label ?? 'tool';
  return (
    <details className={`step tool t-${tool.kind} st-${status}`} id={step.anchor} open={status === 'error' || agent}>
      <summary>
        <span className="tool-name">{agent ? `Subagent (${name})` : name}</span>
        {tool.subject && (
          <code className={`subject${tool.path !== undefined && tool.subject === tool.path ? ' subject-path' : ''}`} title={tool.subject}>
            <bdi>{tool.subject}</bdi>
          </code>
        )}
        <span className={`mark m-${status}`}>{STATUS_WORDS[status]}</span>
      </summary>
      <div className="tool-body">
        {call && <ToolInput tool={tool} call={call} />}
        {agent && step.links.some((link) => link.href?.startsWith('s/')) && (
          <p className="subagent-link">
            {step.links
              .filter((link) => link.href?.startsWith('s/'))
              .map((link, index) => (
                <a key={index} href={`${root}${link.href}`}>
                  Open the subagent’s transcript
                </a>
              ))}
          </p>
        )}
        {results.map((part, index) => (
          <Output key={index} part={part} tool={tool} />
        ))}
        {results.length === 0 && <p className="no-result">No result was recorded for this call.</p>}
        <Evidence step={step} root={root} />
      </div>
    </details>
  );
}

function ToolInput({ tool, call }: { tool: ToolDescription; call: PartView }): ReactNode {
  const code = call.segments[0];
  switch (tool.kind) {
    case 'shell':
      return (
        <>
          {tool.description && <p className="tool-note">{tool.description}</p>}
          <div className="command">
            <span className="prompt" aria-hidden="true">
              $
            </span>
            {code && <Code segment={code} />}
          </div>
          <Rest tool={tool} />
        </>
      );
    case 'file_write':
      return (
        <>
          <p className="tool-note">
            Writes <code>{tool.path}</code>
          </p>
          {code && <Code segment={code} />}
          <Rest tool={tool} />
        </>
      );
    case 'edit':
      return (
        <>
          <p className="tool-note">
            Edits <code>{tool.path}</code>
          </p>
          {(tool.edits ?? []).map((edit, index) => (
            <Diff key={index} before={edit.before} after={edit.after} />
          ))}
          <Rest tool={tool} />
        </>
      );
    case 'file_read':
      return (
        <>
          <p className="tool-note">
            Reads <code>{tool.path}</code>
          </p>
          <Rest tool={tool} />
        </>
      );
    case 'search':
      return (
        <>
          <p className="tool-note">
            Looks for <code>{tool.pattern}</code>
            {tool.scope && (
              <>
                {' '}
                in <code>{tool.scope}</code>
              </>
            )}
          </p>
          <Rest tool={tool} />
        </>
      );
    case 'todo':
      return (
        <ul className="todos">
          {(tool.todos ?? []).map((todo, index) => (
            <li key={index} className={`todo-${todo.state}`}>
              <span className="check" aria-label={todo.state.replace('_', ' ')}>
                {todo.state === 'completed' ? '☑' : todo.state === 'in_progress' ? '◐' : '☐'}
              </span>{' '}
              {todo.text}
            </li>
          ))}
        </ul>
      );
    case 'agent':
      return (
        <>
          {tool.description && tool.description !== tool.subject && <p className="tool-note">{tool.description}</p>}
          {tool.prompt !== undefined && (
            <details className="prompt-fold">
              <summary>Prompt given to the subagent</summary>
              <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(tool.prompt) }} />
            </details>
          )}
          <Rest tool={tool} />
        </>
      );
    case 'web':
      return (
        <>
          {tool.address && (
            <p className="tool-note">
              Fetches <code>{tool.address}</code>
            </p>
          )}
          {tool.query && (
            <p className="tool-note">
              Searches the web for <code>{tool.query}</code>
            </p>
          )}
          {tool.prompt && <p className="tool-note">{tool.prompt}</p>}
          <Rest tool={tool} />
        </>
      );
    case 'mcp':
      return (
        <>
          <p className="tool-note">
            MCP server <code>{tool.server}</code>, tool <code>{tool.tool}</code>
          </p>
          {tool.rest !== undefined ? <Rest tool={tool} /> : code && <Code segment={code} />}
        </>
      );
    default:
      // A tool the adapter gives prose for (a plan, a question) shows it as markdown; any other, its input as JSON.
      if (tool.prompt !== undefined) {
        return (
          <>
            <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(tool.prompt) }} />
            <Rest tool={tool} />
          </>
        );
      }
      return code ? <Code segment={code} /> : null;
  }
}

/** The input a description did not name, when there is any, each parameter by its name: `replace_all false`, not a JSON object. */
function Rest({ tool }: { tool: ToolDescription }): ReactNode {
  if (tool.rest === undefined) return null;
  return <Value value={tool.rest} />;
}

/** A value as a readable tree: an object's fields by name, a list's items in order, text as text. */
function Value({ value }: { value: unknown }): ReactNode {
  if (typeof value === 'string') return value.includes('\n') ? <pre className="text">{value}</pre> : <span className="value-text">{value}</span>;
  if (typeof value !== 'object' || value === null) return <code className="value-scalar">{String(value)}</code>;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index + 1), item]) : Object.entries(value);
  if (entries.length === 0) return <code className="value-scalar">{Array.isArray(value) ? '[]' : '{}'}</code>;
  return (
    <dl className={`parameters${Array.isArray(value) ? ' list' : ''}`}>
      {entries.map(([key, item]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <Value value={item} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Diff({ before, after }: { before: string; after: string }) {
  return (
    <pre className="diff">
      {editDiff(before, after).map((line, index) => (
        <span key={index} className={line.sign === '+' ? 'd-add' : line.sign === '-' ? 'd-remove' : 'd-same'}>
          <span className="sign">{line.sign}</span>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** What came back: terminal output with its colours as classes, anything else as its part shows it; long output folded after its first line. */
function Output({ part, tool }: { part: PartView; tool: ToolDescription }): ReactNode {
  if (part.kind !== 'result' || part.segments.some((segment) => segment.language !== undefined)) return <Part part={part} />;
  const text = partText(part);
  // A subagent answers in prose, as the assistant does.
  const lines = lineCount(text);
  if (tool.kind === 'agent') {
    const answer = <Part part={{ ...part, kind: 'text', segments: prose(text) }} />;
    // A long answer is folded like long output, so that the turns after it are not pages away.
    if (lines <= LONG_OUTPUT_LINES) {
      return (
        <div className="result agent-result">
          <p className="tool-note">The subagent’s answer:</p>
          {answer}
        </div>
      );
    }
    return (
      <details className="result agent-result answer-fold">
        <summary>
          The subagent’s answer <span className="size">({lines} lines, {bytes(part.heldBytes)})</span>
        </summary>
        {answer}
      </details>
    );
  }
  const body = (
    <pre className={`output${part.failed ? ' failed' : ''}`}>
      {terminalRuns(text).map((run, index) => (run.classes ? <span key={index} className={run.classes}>{run.text}</span> : run.text))}
    </pre>
  );
  const note = part.shownBytes < part.heldBytes ? <p className="part-note">The first {Math.round(part.shownBytes / 1024)} KB of {Math.round(part.heldBytes / 1024)} KB shown; the whole is in the evidence.</p> : null;
  if (text.length === 0) return <p className="no-result">{part.state === 'available' ? 'The call returned nothing.' : `Output ${part.state}.`}</p>;
  if (lines <= LONG_OUTPUT_LINES) {
    return (
      <div className={`result${tool.kind === 'shell' ? ' terminal' : ''}`}>
        {body}
        {note}
      </div>
    );
  }
  const first = text.split('\n', 1)[0]!;
  return (
    <details className={`result long${tool.kind === 'shell' ? ' terminal' : ''}`}>
      <summary>
        <span className="first-line">{first.length > 160 ? `${first.slice(0, 160)}…` : first}</span> <span className="size">({lines} lines)</span>
      </summary>
      {body}
      {note}
    </details>
  );
}

