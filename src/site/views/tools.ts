// A tool use as a card: one line when closed (the tool, what it works on,
// how it ended), and when open its input rendered for what the tool is
// (model/tools.ts: a command, a file, a diff, a checklist, a prompt) and
// what came back. Which cards start open is models/tool-cards.ts's; a
// subagent's call starts open with its prompt folded.

import { bytes, editDiff, firstLine, lineCount, terminalRuns } from '../models/shown-text.ts';
import type { PartView, StepView } from '../models/views.ts';
import type { ToolDescription } from '../../model/tools.ts';
import { markdownHtml } from '../models/markdown.ts';
import { prose } from '../models/parts.ts';
import { isAgentCall, toolCardStartsOpen, toolStatus, type ToolStatus } from '../models/tool-cards.ts';
import { flag, html, preStart, trusted, type Html } from './html.ts';
import { selfLinkHtml } from './self-link.ts';
import { stepFoldHtml } from './evidence-html.ts';
import { codeHtml, partHtml, partNotesHtml, partText } from './talks.ts';

const STATUS_WORDS: Record<ToolStatus, string> = { ok: '✓ ok', error: '✗ error', 'no-result': '… no result' };

/** Output longer than this many lines is folded after its first line. */
const LONG_OUTPUT_LINES = 20;

export function toolCardHtml(step: StepView, root: string): Html {
  const call = step.parts.find((part) => part.kind === 'call');
  const results = step.parts.filter((part) => part.kind !== 'call');
  const tool: ToolDescription = call?.tool ?? { kind: 'other' };
  const status = toolStatus(step);
  const agent = isAgentCall(step);
  const name = step.toolName ?? call?.label ?? 'tool';
  const transcripts = agent ? step.links.filter((link) => link.href?.startsWith('s/')) : [];
  return html`<details class="step tool t-${tool.kind} st-${status}" id="${step.anchor}"${flag('open', toolCardStartsOpen(step))}><summary><span class="tool-name">${agent ? `Subagent (${name})` : name}</span>${
    tool.subject && html`<code class="subject${tool.path !== undefined && tool.subject === tool.path ? ' subject-path' : ''}" title="${tool.subject}"><bdi>${tool.subject}</bdi></code>`
  }<span class="mark m-${status}">${STATUS_WORDS[status]}</span>${selfLinkHtml(step.anchor, 'tool call')}</summary><div class="tool-body">${call && toolInputHtml(tool, call)}${
    transcripts.length > 0 && html`<p class="subagent-link">${transcripts.map((link) => html`<a href="${root}${link.href}">Open the subagent’s transcript</a>`)}</p>`
  }${results.map((part) => outputHtml(part, tool, root, results))}${results.length === 0 && html`<p class="no-result">No result was recorded for this call.</p>`}${stepFoldHtml(step, root)}</div></details>`;
}

function toolInputHtml(tool: ToolDescription, call: PartView): Html | undefined {
  const code = call.segments[0];
  switch (tool.kind) {
    case 'shell':
      return html`${tool.description && html`<p class="tool-note">${tool.description}</p>`}<div class="command"><span class="prompt" aria-hidden="true">$</span>${code && codeHtml(code)}</div>${restHtml(tool)}`;
    case 'file_write':
      return html`<p class="tool-note">Writes <code>${tool.path}</code></p>${code && codeHtml(code)}${restHtml(tool)}`;
    case 'edit':
      return html`<p class="tool-note">Edits <code>${tool.path}</code></p>${(tool.edits ?? []).map((edit) => diffHtml(edit.before, edit.after))}${restHtml(tool)}`;
    case 'file_read':
      return html`<p class="tool-note">Reads <code>${tool.path}</code></p>${restHtml(tool)}`;
    case 'search':
      return html`<p class="tool-note">Looks for <code>${tool.pattern}</code>${tool.scope && html` in <code>${tool.scope}</code>`}</p>${restHtml(tool)}`;
    case 'todo':
      return html`<ul class="todos">${(tool.todos ?? []).map(
        (todo) =>
          html`<li class="todo-${todo.state}"><span class="check" aria-label="${todo.state.replace('_', ' ')}">${todo.state === 'completed' ? '☑' : todo.state === 'in_progress' ? '◐' : '☐'}</span> ${todo.text}</li>`,
      )}</ul>`;
    case 'agent':
      return html`${tool.description && tool.description !== tool.subject && html`<p class="tool-note">${tool.description}</p>`}${
        tool.prompt !== undefined && html`<details class="prompt-fold"><summary>Prompt given to the subagent</summary><div class="markdown">${trusted(markdownHtml(tool.prompt))}</div></details>`
      }${restHtml(tool)}`;
    case 'web':
      return html`${tool.address && html`<p class="tool-note">Fetches <code>${tool.address}</code></p>`}${tool.query && html`<p class="tool-note">Searches the web for <code>${tool.query}</code></p>`}${
        tool.prompt && html`<p class="tool-note">${tool.prompt}</p>`
      }${restHtml(tool)}`;
    case 'mcp':
      return html`<p class="tool-note">MCP server <code>${tool.server}</code>, tool <code>${tool.tool}</code></p>${tool.rest !== undefined ? restHtml(tool) : code && codeHtml(code)}`;
    default:
      // A tool the adapter gives prose for (a plan, a question) shows it as markdown; any other, its input as JSON.
      if (tool.prompt !== undefined) return html`<div class="markdown">${trusted(markdownHtml(tool.prompt))}</div>${restHtml(tool)}`;
      return code && codeHtml(code);
  }
}

/** The input a description did not name, when there is any, each parameter by its name: `replace_all false`, not a JSON object. */
function restHtml(tool: ToolDescription): Html | undefined {
  return tool.rest === undefined ? undefined : valueHtml(tool.rest);
}

/** A value as a readable tree: an object's fields by name, a list's items in order, text as text. */
function valueHtml(value: unknown): Html {
  if (typeof value === 'string') return value.includes('\n') ? html`<pre class="text">${preStart(value)}${value}</pre>` : html`<span class="value-text">${value}</span>`;
  if (typeof value !== 'object' || value === null) return html`<code class="value-scalar">${String(value)}</code>`;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index + 1), item]) : Object.entries(value);
  if (entries.length === 0) return html`<code class="value-scalar">${Array.isArray(value) ? '[]' : '{}'}</code>`;
  return html`<dl class="parameters${Array.isArray(value) ? ' list' : ''}">${entries.map(([key, item]) => html`<div><dt>${key}</dt><dd>${valueHtml(item)}</dd></div>`)}</dl>`;
}

function diffHtml(before: string, after: string): Html {
  return html`<pre class="diff">${editDiff(before, after).map(
    (line) => html`<span class="${line.sign === '+' ? 'd-add' : line.sign === '-' ? 'd-remove' : 'd-same'}"><span class="sign">${line.sign}</span>${line.text}\n</span>`,
  )}</pre>`;
}

/**
 * What came back: terminal output with its colours as classes, anything
 * else as its part shows it; long output folded after its first line. A
 * result with no text beside an image (`results`) returned the image, not nothing.
 */
function outputHtml(part: PartView, tool: ToolDescription, root: string, results: readonly PartView[]): Html | undefined {
  if (part.kind !== 'result' || part.segments.some((segment) => segment.language !== undefined)) return partHtml(part, root);
  const text = partText(part);
  const lines = lineCount(text);
  if (tool.kind === 'agent') {
    // A subagent answers in prose, as the assistant does.
    const answer = partHtml({ ...part, kind: 'text', segments: prose(text) }, root);
    // A long answer is folded like long output, so that the turns after it are not pages away.
    if (lines <= LONG_OUTPUT_LINES) return html`<div class="result agent-result"><p class="tool-note">The subagent’s answer:</p>${answer}</div>`;
    return html`<details class="result agent-result answer-fold"><summary>The subagent’s answer <span class="size">(${lines} lines, ${bytes(part.heldBytes)})</span></summary>${answer}</details>`;
  }
  if (text.length === 0 && part.state === 'available' && results.some((other) => other.kind === 'media')) return undefined;
  if (text.length === 0) return html`<p class="no-result">${part.state === 'available' ? 'The call returned nothing.' : `Output ${part.state}.`}</p>`;
  const body = html`<pre class="output${part.failed ? ' failed' : ''}">${preStart(text)}${terminalRuns(text).map((run) => (run.classes ? html`<span class="${run.classes}">${run.text}</span>` : run.text))}</pre>`;
  // What a redaction or the source did to the output, and how much of it is shown, as for any part.
  const notes = partNotesHtml(part);
  const terminal = tool.kind === 'shell' ? ' terminal' : '';
  if (lines <= LONG_OUTPUT_LINES) return html`<div class="result${terminal}">${body}${notes}</div>`;
  return html`<details class="result long${terminal}"><summary><span class="first-line">${firstLine(text)}</span> <span class="size">(${lines} lines)</span></summary>${body}${notes}</details>`;
}
