// Claude Code records into `.sd` rows: the only place Claude Code's field
// names are turned into the model's words (seed design-notes/03 §4.5).
//
// Record level:
//   uuid → id             parentUuid → parent       message.id → call (never requestId:
//   promptId → run        timestamp → ts             a client-made record can reuse a real one)
//   origin.kind, else attachment.origin.kind → trigger (many records state only the second)
//   logicalParentUuid → continues                    toolUseResult.agentId, a journal's
//   toolUseResult.toolUseId, a notification's         agentId, a notification's task id → child
//     <tool-use-id>, a hook's or progress's tool → tool
//   toolUseResult.runId, or the run folder → batch
//   a system record's subtype, an attachment's type → notice (notices.ts)
// Part level: every content block becomes one part, in order, and a block the
// adapter does not know becomes an `unknown` part that keeps its bytes.
//
// The converter never throws: a record it cannot read is still evidence, with
// a known position and kept bytes, and becomes a row with one `unknown` part.

import { textOf, type ParsedJson } from '../../files/json-text.ts';
import { isObject, text, type JsonObject as Json } from './json-fields.ts';
import type { LandedHeader, LandedRecord } from '../../landing/landed-file.ts';
import type { Producer, RecordFlag, Trigger } from '../../model/vocabulary.ts';
import type { Converter } from '../../session-data/derive.ts';
import type { Dropped, MediaPart, Part, ResultPart, SessionDataRow, Usage } from '../../session-data/format.ts';
import { isAgentId } from './identifiers.ts';
import { noticeOf } from './notices.ts';

// The generation of the rows this converter makes: raised whenever the rows
// of the same landed records change, so that `.sd` written before are
// derived again (session-data/derive.ts, deriveOutdatedSessionData).
export const DIALECT = 'claude-code/2';

export const claudeCodeConverter: Converter = { dialect: DIALECT, convert };

// How the strings of the record being converted are held: as UTF-8 bytes,
// one character per byte (ParsedJson), or as text. The row's strings are in
// the same form, and a string of bytes' UTF-8 length is its length. Each
// call of convert makes its own and hands it to every helper that measures
// or reads a string.
interface StringForm {
  readonly asBytes: boolean;
}

function convert(record: LandedRecord, header: LandedHeader, row: number, parsed?: ParsedJson): SessionDataRow {
  const form: StringForm = { asBytes: parsed?.stringsAsBytes ?? false };
  if (header.kind === 'workflow_script') {
    // A script is a program. It is kept whole as data, readable, and not
    // mistaken for anything a person or a model wrote.
    const text = record.encoding === 'base64' ? undefined : payloadText(record, form);
    if (text === undefined) return unreadable(form, row, record, 'the script is not valid UTF-8');
    return { row, ...(header.run !== undefined ? { batch: header.run } : {}), from: 'runtime', flags: ['structural'], parts: [{ k: 'data', state: 'available', bytes: record.payload.length, data: text }] };
  }
  if (record.encoding === 'base64') return unreadable(form, row, record, 'the record is not valid UTF-8');
  let value = parsed?.value;
  if (parsed === undefined) {
    try {
      value = JSON.parse(record.payload.toString('utf8'));
    } catch {
      return unreadable(form, row, record, 'the record is not valid JSON');
    }
  }
  if (!isObject(value)) return unreadable(form, row, record, 'the record is not a JSON object');
  switch (header.kind) {
    case 'agent_meta':
      return sidecarRow(form, row, value, header, record);
    case 'journal':
      return journalRow(form, row, value, header, record);
    case 'workflow_manifest':
      return manifestRow(form, row, value, header, record);
    default:
      return { ...transcriptRow(form, row, value), ...(row === 1 ? projectOf(header) : {}) };
  }
}

// Claude Code keeps a project's sessions in a folder named after the
// project's path (projects/<folder>/<session>.jsonl, agent files below it).
// The folder is said once per landed file, on its first row.
function projectOf(header: LandedHeader): { project?: string } {
  const folder = header.src.split('/')[0];
  return folder !== undefined && folder !== '' && folder !== header.src ? { project: folder } : {};
}

function unreadable(form: StringForm, row: number, record: LandedRecord, why: string): SessionDataRow {
  const raw = record.encoding === 'base64' ? record.payload.toString('base64') : payloadText(record, form);
  return {
    row,
    from: 'runtime',
    parts: [{ k: 'unknown', state: 'available', bytes: record.payload.length, why, raw, ...(record.encoding === 'base64' ? { encoding: 'base64' as const } : {}) }],
  };
}

// A child's sidecar is written once, at spawn. It names the parent agent only
// for a nested child; for most children it holds just the type and depth, and
// the join has to come from the parent's side or the run journal.
function sidecarRow(form: StringForm, row: number, value: Json, header: LandedHeader, record: LandedRecord): SessionDataRow {
  return {
    row,
    tool: text(value.toolUseId),
    child: text(value.agentId) ?? header.stream ?? undefined,
    started_by: text(value.parentAgentId),
    label: text(value.description),
    from: 'runtime',
    flags: ['structural'],
    parts: [dataPart(form, value, record.payload.length)],
  };
}

// A run journal announces each child it starts, often before the child's
// transcript exists, and records what each child returned: most of those
// results appear nowhere else.
function journalRow(form: StringForm, row: number, value: Json, header: LandedHeader, record: LandedRecord): SessionDataRow {
  const flags: RecordFlag[] = ['structural'];
  if (value.result !== undefined) flags.push('child_result');
  return {
    row,
    ts: text(value.timestamp),
    child: text(value.agentId),
    batch: header.run,
    from: 'runtime',
    flags,
    parts: [dataPart(form, value, record.payload.length)],
  };
}

function manifestRow(form: StringForm, row: number, value: Json, header: LandedHeader, record: LandedRecord): SessionDataRow {
  return {
    row,
    batch: text(value.runId) ?? header.run,
    label: text(value.workflowName),
    from: 'runtime',
    flags: ['structural'],
    parts: [dataPart(form, value, record.payload.length)],
  };
}

// Rows are built with absent fields left undefined: JSON.stringify leaves
// them out, so a row never carries an empty field and the same record always
// gives the same bytes.

// Fields that say who and where a record is, or that are turned into
// record-level roles or parts below. Whatever else a record carries is its
// content and travels as a data part, so nothing is lost by not knowing it.
const IDENTITY_FIELDS = new Set([
  'parentUuid', 'logicalParentUuid', 'isSidechain', 'userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'slug',
  'type', 'uuid', 'timestamp', 'entrypoint', 'requestId', 'agentId', 'promptId', 'message', 'toolUseResult',
  'attachment', 'origin', 'isMeta', 'isCompactSummary', 'leafUuid', 'subtype', 'content', 'level',
  'sourceToolAssistantUUID', 'summary', 'aiTitle', 'customTitle',
]);

// Record types that take part in the conversation. Everything else is
// bookkeeping: progress, file snapshots, pointers, settings, queues.
const CONVERSATIONAL = new Set(['user', 'assistant', 'system', 'attachment']);

function transcriptRow(form: StringForm, row: number, value: Json): SessionDataRow {
  const type = text(value.type) ?? '';
  const message = isObject(value.message) ? value.message : undefined;
  const attachment = isObject(value.attachment) ? value.attachment : undefined;
  const toolUseResult = value.toolUseResult;
  const toolObject = isObject(toolUseResult) ? toolUseResult : undefined;

  const dropped: Dropped[] = [];
  let parts: Part[] = [];
  if (type === 'attachment') {
    parts = attachmentParts(form, attachment);
  } else if (message !== undefined && message.content !== undefined) {
    parts = contentParts(form, message.content, dropped);
  } else if (value.content !== undefined && (type === 'system' || type === 'queue-operation')) {
    parts = contentParts(form, value.content, dropped);
  } else if (typeof value.summary === 'string') {
    parts = [textPart(form, value.summary)];
  }
  if (toolUseResult !== undefined) attachToolUseResult(form, parts, toolUseResult);
  if (message === undefined && type !== 'attachment') {
    const rest = restOf(value);
    if (rest !== undefined) parts.push(dataPart(form, rest));
  }

  const notification = notificationOf(parts);
  const trigger = triggerOf(value, attachment);
  const flags = flagsOf(type, value, message, attachment, toolObject, parts, trigger);
  const stop = message !== undefined ? text(message.stop_reason) : undefined;
  const from = producerOf(type, flags, parts);

  return {
    row,
    id: text(value.uuid),
    parent: text(value.parentUuid),
    call: type === 'assistant' && message !== undefined ? text(message.id) : undefined,
    run: text(value.promptId),
    ts: text(value.timestamp),
    trigger,
    continues: text(value.logicalParentUuid),
    tool: text(toolObject?.toolUseId) ?? notification.tool ?? toolPointer(value.parentToolUseID) ?? toolPointer(value.toolUseID) ?? toolPointer(attachment?.toolUseID),
    child: text(toolObject?.agentId) ?? notification.child,
    batch: text(toolObject?.runId),
    leaf: text(value.leafUuid),
    ...titleOf(type, value),
    cwd: text(value.cwd),
    git_branch: text(value.gitBranch),
    model: message !== undefined ? text(message.model) : undefined,
    stop,
    from,
    prompt: promptPart(from, flags, parts),
    flags,
    notice: noticeOf(type, value, attachment),
    usage: message !== undefined ? usageOf(message.usage) : undefined,
    parts: parts.length > 0 ? parts : [dataPart(form, value)],
    dropped: dropped.length > 0 ? dropped : undefined,
  };
}

// Three record types title a conversation: a summary of the branch ending at
// its leafUuid (Claude Code 1.0 and 2.0), a title the person set with
// /rename, and one the runtime generated.
function titleOf(type: string, value: Json): Pick<SessionDataRow, 'label' | 'title'> {
  if (type === 'summary' && text(value.summary) !== undefined) return { label: text(value.summary), title: 'summary' };
  if (text(value.customTitle) !== undefined) return { label: text(value.customTitle), title: 'custom-title' };
  if (text(value.aiTitle) !== undefined) return { label: text(value.aiTitle), title: 'ai-title' };
  return {};
}

// Text the runtime puts into a person's message beside what they typed: the
// file or lines open in their editor, hook output, reminders.
const RUNTIME_CONTEXT = ['<ide_opened_file>', '<ide_selection>', '<system-reminder>', '<session-start-hook>', '<user-prompt-submit-hook>'];

// Which part holds what a person typed, on a prompt that is not a command:
// the first text part that is not context the runtime added.
function promptPart(from: Producer, flags: RecordFlag[], parts: Part[]): number | undefined {
  if (from !== 'person' || flags.includes('command') || flags.includes('interrupt')) return undefined;
  const index = parts.findIndex((part) => part.k === 'text' && !RUNTIME_CONTEXT.some((marker) => part.text.startsWith(marker)));
  return index >= 0 ? index : undefined;
}

// A hook's or a progress record's tool pointer is sometimes a real tool use id
// and sometimes a label of the runtime's own (bash-progress-0), which would
// join to nothing. Only the former is taken.
function toolPointer(value: unknown): string | undefined {
  const id = text(value);
  return id !== undefined && /^[a-z]*toolu_[A-Za-z0-9]+$/.test(id) ? id : undefined;
}

function contentParts(form: StringForm, content: unknown, dropped: Dropped[]): Part[] {
  // Content is sometimes a bare string and otherwise a list of blocks, of
  // which every one counts: reading only the first renders an image as the
  // prompt and loses tool calls.
  if (typeof content === 'string') return [textPart(form, content)];
  if (!Array.isArray(content)) return [unknownPart(form, content, 'the content is neither text nor a list of blocks')];
  const parts: Part[] = [];
  for (const block of content) parts.push(...blockParts(form, block, dropped));
  return parts;
}

function blockParts(form: StringForm, block: unknown, dropped: Dropped[]): Part[] {
  if (!isObject(block)) return [unknownPart(form, block, 'a content block that is not an object')];
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? [textPart(form, block.text)] : [unknownPart(form, block, 'a text block without text')];
    case 'thinking': {
      // Claude Code asks the provider not to return reasoning text, so the
      // block arrives with a signature and an empty string. Calling that
      // available would claim something we do not have.
      const reasoning = typeof block.thinking === 'string' ? block.thinking : '';
      if (typeof block.signature === 'string' && block.signature.length > 0) {
        // A provider verifies the signature; no reader can read it. It is a
        // large share of a transcript's bytes, so it is left out, and said so.
        dropped.push({ what: 'reasoning signature', bytes: byteLength(form, block.signature), why: 'a provider verifies it; a reader cannot read it' });
      }
      return [{ k: 'reasoning', state: reasoning === '' ? 'unavailable' : 'available', bytes: byteLength(form, reasoning), text: reasoning }];
    }
    case 'redacted_thinking': {
      const encrypted = typeof block.data === 'string' ? block.data : '';
      if (encrypted !== '') dropped.push({ what: 'encrypted reasoning', bytes: byteLength(form, encrypted), why: 'the provider redacted it; only the provider can read it' });
      return [{ k: 'reasoning', state: 'redacted', bytes: byteLength(form, encrypted), text: '' }];
    }
    case 'tool_use':
    case 'server_tool_use': {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') return [unknownPart(form, block, 'a tool call without an id or a name')];
      return [{ k: 'call', state: 'available', bytes: jsonBytes(form, block.input ?? null), id: block.id, name: block.name, input: block.input ?? null }];
    }
    case 'tool_result':
      return resultParts(form, block);
    case 'image':
    case 'document':
      return [mediaPart(form, block)];
  }
  return [unknownPart(form, block, `block type ${JSON.stringify(block.type)} is not one this adapter describes`)];
}

// A result's content is a string, or a list of text, images and other blocks
// (tool_reference, for one). Its text is joined; images become media parts
// that name the call; anything else travels with the result as it is.
function resultParts(form: StringForm, block: Json): Part[] {
  const of = text(block.tool_use_id) ?? '';
  const texts: string[] = [];
  const media: Part[] = [];
  const other: unknown[] = [];
  if (typeof block.content === 'string') {
    texts.push(block.content);
  } else if (Array.isArray(block.content)) {
    for (const item of block.content) {
      if (isObject(item) && item.type === 'text' && typeof item.text === 'string') texts.push(item.text);
      else if (isObject(item) && (item.type === 'image' || item.type === 'document')) media.push({ ...mediaPart(form, item), of });
      else other.push(item);
    }
  } else if (block.content !== undefined && block.content !== null) {
    other.push(block.content);
  }
  const resultText = texts.join('\n');
  // Long output is cut in the transcript and the whole of it saved to a file
  // outside it. The preview says so; the part must too.
  const truncated = resultText.includes('Full output saved to: ') || resultText.includes('<persisted-output>');
  const result: ResultPart = {
    k: 'result',
    state: truncated ? 'truncated' : 'available',
    bytes: byteLength(form, resultText) + (other.length > 0 ? jsonBytes(form, other) : 0),
    of,
    text: resultText,
    // Absent is not success: only an explicit true or false is carried.
    ...(typeof block.is_error === 'boolean' ? { failed: block.is_error } : {}),
    ...(other.length > 0 ? { content: other } : {}),
  };
  return [result, ...media];
}

// The runtime's own structured form of a tool's result (stdout and stderr
// apart, a patch, a child's status) is a different view of the same output,
// so it travels beside the text rather than replacing it. It is an object most
// of the time and a bare string the rest.
function attachToolUseResult(form: StringForm, parts: Part[], toolUseResult: unknown): void {
  const index = parts.findIndex((part) => part.k === 'result');
  if (index < 0) {
    parts.push(dataPart(form, toolUseResult));
    return;
  }
  const result = parts[index] as ResultPart;
  const persisted = isObject(toolUseResult) && typeof toolUseResult.persistedOutputPath === 'string';
  parts[index] = { ...result, data: toolUseResult, ...(persisted ? { state: 'truncated' as const } : {}) };
}

function attachmentParts(form: StringForm, attachment: Json | undefined): Part[] {
  if (attachment === undefined) return [unknownPart(form, null, 'an attachment record without an attachment')];
  // A queued prompt carries what the person typed in `prompt`; most other
  // types carry readable text in `text` or `content`, and the rest are sets of
  // fields (names added and removed, counts, lists) that still are context.
  const readable = attachment.type === 'queued_command' ? attachment.prompt : attachment.text ?? attachment.content;
  if (typeof readable === 'string' && readable !== '') return [textPart(form, readable), dataPart(form, attachment)];
  // A list is lines of text (a hook's added context), content blocks (a
  // queued prompt with an image), or the runtime's own items (a task list).
  // Only the first two are read; the third is context as data.
  if (Array.isArray(readable) && readable.length > 0) {
    if (readable.every((item) => typeof item === 'string')) return [textPart(form, readable.join('\n')), dataPart(form, attachment)];
    if (readable.every((item) => isObject(item) && (item.type === 'text' || item.type === 'image'))) return [...contentParts(form, readable, []), dataPart(form, attachment)];
  }
  return [dataPart(form, attachment)];
}

function mediaPart(form: StringForm, block: Json): MediaPart {
  const source = isObject(block.source) ? block.source : {};
  const data = typeof source.data === 'string' ? source.data : undefined;
  return {
    k: 'media',
    state: data !== undefined ? 'available' : 'unavailable',
    bytes: data !== undefined ? Buffer.byteLength(characters(form, data), 'base64') : 0,
    media_type: text(source.media_type) ?? 'application/octet-stream',
    ...(data !== undefined ? { data } : {}),
  };
}

// A completion notification is text the runtime writes into the parent's
// transcript. Its <tool-use-id> names the call it completes and is the
// primary key. Its <task-id> is an agent id only sometimes, so it is taken
// only when it has an agent id's shape. <status> is not read: many
// notifications have none.
function notificationOf(parts: Part[]): { tool?: string; child?: string } {
  for (const part of parts) {
    if (part.k !== 'text' || !part.text.includes('<task-notification>')) continue;
    const tool = between(part.text, '<tool-use-id>', '</tool-use-id>');
    let child: string | undefined;
    for (const match of part.text.matchAll(/<task-id>([^<]*)<\/task-id>/g)) {
      const id = trimmed(match[1]!);
      if (isAgentId(id)) {
        child = id;
        break;
      }
    }
    return { tool, child };
  }
  return {};
}

function between(whole: string, open: string, close: string): string | undefined {
  const start = whole.indexOf(open);
  if (start < 0) return undefined;
  const end = whole.indexOf(close, start + open.length);
  if (end < 0) return undefined;
  return trimmed(whole.slice(start + open.length, end)) || undefined;
}

// The cause sits on the record and, for a large share, only on the
// attachment inside it. The set is open, so an unrecognised value is
// `unknown`, never treated as absent.
function triggerOf(value: Json, attachment: Json | undefined): Trigger | undefined {
  const origin = isObject(value.origin) ? value.origin : isObject(attachment?.origin) ? attachment.origin : undefined;
  const kind = text(origin?.kind);
  if (kind === undefined) return undefined;
  if (kind === 'human') return 'external';
  if (kind === 'task-notification') return 'notification';
  return 'unknown';
}

// Text that Claude Code itself writes into the user role. None of it was
// typed as a prompt.
const RUNTIME_WRITTEN = ['<local-command-stdout>', '<local-command-stderr>', '<local-command-caveat>', '<task-notification>', '[Request interrupted by user', 'Caveat: The messages below'];

function flagsOf(
  type: string,
  value: Json,
  message: Json | undefined,
  attachment: Json | undefined,
  toolObject: Json | undefined,
  parts: Part[],
  trigger: Trigger | undefined,
): RecordFlag[] {
  const flags = new Set<RecordFlag>();
  if (type === 'assistant' && message !== undefined) {
    // The model name, not a missing request id: a quarter of client-made
    // records carry a request id, and a real call exists without one.
    if (message.model === '<synthetic>') flags.add('synthetic');
    // A stop reason makes the usage final. It does NOT mark the last fragment
    // of a call: a main transcript stamps it on every fragment.
    if (text(message.stop_reason) !== undefined) flags.add('finished');
  }
  if (type === 'system') {
    switch (value.subtype) {
      case 'compact_boundary':
        flags.add('context_reset');
        break;
      case 'api_error':
        flags.add('error');
        break;
      case 'turn_duration':
        flags.add('turn_duration');
        break;
      case 'local_command':
        flags.add('command');
        break;
      default:
        // Every subtype says something about the session; an unknown one is
        // a notice rather than nothing.
        flags.add('notice');
    }
  }
  if (value.isCompactSummary === true) flags.add('reset_summary');
  if (toolObject?.status === 'async_launched') flags.add('launch_ack');
  if (toolObject?.status === 'completed' && text(toolObject.agentId) !== undefined) flags.add('child_result');
  if (value.isSidechain === true) flags.add('sidechain');
  if (!CONVERSATIONAL.has(type)) flags.add('structural');
  if (type === 'queue-operation') flags.add('queued');

  if (type === 'attachment') {
    // A queued command the person typed exists only as an attachment. Its
    // command mode separates it from a queued completion notice; everything
    // else attached is injected context, by default rather than by a list,
    // because a list has to be right about types that do not exist yet.
    if (attachment?.type === 'queued_command' && attachment.commandMode === 'prompt') {
      // Typed while the agent worked: steering inside the running Talk, never a Talk start.
      flags.add('queued');
      if (trigger === 'external') flags.add('external_input');
      else if (trigger === undefined) flags.add('apparent_input');
    } else {
      flags.add('injected');
    }
  }
  if (type === 'user') {
    const typed = isTypedInput(value, parts);
    if (trigger === 'external' && value.isMeta !== true) flags.add('external_input');
    else if (trigger === undefined && typed) flags.add('apparent_input');
    const first = parts[0];
    if (first?.k === 'text' && first.text.startsWith('[Request interrupted by user')) flags.add('interrupt');
    // A slash command is written with its name first or, in some versions,
    // its message first; a shell command the person ran as its input.
    if (first?.k === 'text' && ['<command-name>', '<command-message>', '<bash-input>', '<bash-stdout>', '<bash-stderr>'].some((marker) => first.text.startsWith(marker))) flags.add('command');
    if (first?.k === 'text' && (first.text.startsWith('<local-command-stdout>') || first.text.startsWith('<local-command-stderr>'))) flags.add('command');
  }
  if (value.isMeta === true) {
    // Text the harness placed in the user role is injected, whatever it says.
    flags.add('injected');
    flags.delete('external_input');
    flags.delete('apparent_input');
  }
  return [...flags];
}

// Older Claude Code versions state no origin at all. A user record that
// carries no tool result, is not the runtime's own text, is not a summary and
// is not a child's first prompt has the shape of typed input. It is flagged as
// apparent, not as observed, so assembly can say which it counted.
function isTypedInput(value: Json, parts: Part[]): boolean {
  if (value.isSidechain === true || value.isCompactSummary === true || value.toolUseResult !== undefined) return false;
  if (parts.length === 0 || parts.some((part) => part.k === 'result')) return false;
  const first = parts.find((part) => part.k === 'text');
  if (first === undefined) return parts.some((part) => part.k === 'media');
  return !RUNTIME_WRITTEN.some((marker) => (first as { text: string }).text.startsWith(marker));
}

function producerOf(type: string, flags: RecordFlag[], parts: Part[]): Producer {
  if (type === 'assistant') return flags.includes('synthetic') ? 'runtime' : 'agent';
  if (type === 'user') {
    if (parts.some((part) => part.k === 'result')) return 'tool';
    if (flags.includes('injected')) return 'runtime';
    if (flags.includes('external_input') || flags.includes('apparent_input')) return 'person';
    return 'runtime';
  }
  if (flags.includes('external_input') || flags.includes('apparent_input')) return 'person';
  return 'runtime';
}

function usageOf(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const usage = {
    input: whole(value.input_tokens),
    output: whole(value.output_tokens),
    cache_read: whole(value.cache_read_input_tokens),
    cache_write: whole(value.cache_creation_input_tokens),
  };
  return Object.values(usage).some((count) => count !== undefined) ? usage : undefined;
}

// Made from entries, never by assignment: a record's own `__proto__` field
// would set the prototype of what it was assigned to and be lost.
function restOf(value: Json): Json | undefined {
  const rest = Object.entries(value).filter(([key]) => !IDENTITY_FIELDS.has(key));
  return rest.length > 0 ? Object.fromEntries(rest) : undefined;
}

function textPart(form: StringForm, content: string): Part {
  return { k: 'text', state: 'available', bytes: byteLength(form, content), text: content };
}

function dataPart(form: StringForm, data: unknown, bytes?: number): Part {
  return { k: 'data', state: 'available', bytes: bytes ?? jsonBytes(form, data), data };
}

function unknownPart(form: StringForm, value: unknown, why: string): Part {
  const raw = JSON.stringify(value) ?? 'undefined';
  return { k: 'unknown', state: 'available', bytes: byteLength(form, raw), why, raw };
}

function whole(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function byteLength(form: StringForm, value: string): number {
  return form.asBytes ? value.length : Buffer.byteLength(value, 'utf8');
}

// The record's whole text, in the form of the row's other strings.
function payloadText(record: LandedRecord, form: StringForm): string {
  return record.payload.toString(form.asBytes ? 'latin1' : 'utf8');
}

// The text a string holds, whichever form it is in.
function characters(form: StringForm, value: string): string {
  return form.asBytes ? textOf(value) : value;
}

// Only ASCII white space is taken off: trim() also takes characters such as
// U+00A0, which in a string of bytes is the last byte of a character like à,
// and the same record must give the same row in either form.
function trimmed(value: string): string {
  return value.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');
}

function jsonBytes(form: StringForm, value: unknown): number {
  return byteLength(form, JSON.stringify(value) ?? '');
}

