// Builds synthetic Claude Code transcript lines for fixtures and generated
// corpora. The shapes follow what the seed measured on real transcripts
// (design-notes/01 §1): fragments of one provider call share message.id, each
// fragment carries one content block, tool results are user records whose
// sourceToolAssistantUUID equals their parentUuid, and main transcripts carry
// toolUseResult while child transcripts mostly do not.
//
// Every id is derived from a seed and a counter, so the same script always
// writes the same bytes.

import crypto from 'node:crypto';

export function stableUuid(seed: string, counter: number): string {
  const hex = crypto.createHash('sha256').update(`${seed}:${counter}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function stableId(prefix: string, seed: string, counter: number, length = 24): string {
  const hex = crypto.createHash('sha256').update(`${prefix}:${seed}:${counter}`).digest('base64url').replace(/[-_]/g, 'x');
  return `${prefix}${hex.slice(0, length)}`;
}

export interface TranscriptOptions {
  readonly session: string;
  readonly cwd?: string;
  readonly version?: string;
  /** Set for a child agent's transcript. */
  readonly agent?: string;
  /** A time to start from; each record is one second after the previous. */
  readonly start?: string;
  /**
   * What ids are derived from, instead of the session and agent: for records
   * appended later to a transcript another Transcript wrote, whose ids must
   * not repeat the earlier ones.
   */
  readonly idSeed?: string;
}

type Json = Record<string, unknown>;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** Writes one transcript, record by record, keeping the last uuid as the default parent. */
export class Transcript {
  readonly lines: string[] = [];
  /** Bytes of text() so far: every line and its newline. */
  bytes = 0;
  last: string | null = null;
  private counter = 0;
  private clock: number;

  constructor(readonly options: TranscriptOptions) {
    this.clock = Date.parse(options.start ?? '2026-03-01T10:00:00.000Z');
  }

  private get idSeed(): string {
    return this.options.idSeed ?? `${this.options.session}/${this.options.agent ?? 'main'}`;
  }

  nextUuid(): string {
    return stableUuid(this.idSeed, ++this.counter);
  }

  nextId(prefix: string): string {
    return stableId(prefix, this.idSeed, ++this.counter);
  }

  private common(parent: string | null | undefined): Json {
    this.clock += 1000;
    return {
      parentUuid: parent === undefined ? this.last : parent,
      isSidechain: this.options.agent !== undefined,
      userType: 'external',
      cwd: this.options.cwd ?? '/home/user/project',
      sessionId: this.options.session,
      version: this.options.version ?? '2.1.230',
      gitBranch: 'main',
      ...(this.options.agent !== undefined ? { agentId: this.options.agent } : {}),
    };
  }

  private append(line: string): void {
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
  }

  private push(record: Json): string {
    this.append(JSON.stringify(record));
    const uuid = typeof record.uuid === 'string' ? record.uuid : undefined;
    if (uuid !== undefined) this.last = uuid;
    return uuid ?? '';
  }

  private time(): string {
    return new Date(this.clock).toISOString();
  }

  /** A prompt typed by a person. Recent versions state origin.kind "human". */
  prompt(content: string | Json[], options: { parent?: string | null; origin?: boolean; promptId?: string } = {}): string {
    const uuid = this.nextUuid();
    return this.push({
      ...this.common(options.parent),
      type: 'user',
      message: { role: 'user', content },
      uuid,
      timestamp: this.time(),
      ...(options.origin === false ? {} : { origin: { kind: 'human' } }),
      ...(options.promptId !== undefined ? { promptId: options.promptId } : {}),
    });
  }

  /** Text the harness writes in the user role (isMeta). */
  meta(content: string, options: { parent?: string | null } = {}): string {
    const uuid = this.nextUuid();
    return this.push({ ...this.common(options.parent), type: 'user', message: { role: 'user', content }, isMeta: true, uuid, timestamp: this.time() });
  }

  /**
   * One provider call: one assistant record per block, all with the same
   * message.id. Usage is stamped on every fragment, as main transcripts do;
   * `streaming` writes growing partial output counts instead, as child
   * transcripts do. Returns the uuid of each fragment.
   */
  call(blocks: Json[], options: { parent?: string | null; messageId?: string; usage?: Usage; stopReason?: string | null; streaming?: boolean; model?: string } = {}): string[] {
    const messageId = options.messageId ?? this.nextId('msg_');
    const requestId = this.nextId('req_');
    const usage = options.usage ?? { input_tokens: 100, output_tokens: 20 * blocks.length, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50 };
    const uuids: string[] = [];
    blocks.forEach((block, index) => {
      const last = index === blocks.length - 1;
      const fragmentUsage = options.streaming && !last ? { ...usage, output_tokens: index + 1 } : usage;
      const uuid = this.nextUuid();
      uuids.push(
        this.push({
          ...this.common(index === 0 ? options.parent : undefined),
          message: {
            model: options.model ?? 'claude-opus-4-5',
            id: messageId,
            type: 'message',
            role: 'assistant',
            content: [block],
            stop_reason: options.streaming && !last ? null : options.stopReason === undefined ? (block.type === 'tool_use' ? 'tool_use' : 'end_turn') : options.stopReason,
            stop_sequence: null,
            usage: fragmentUsage,
          },
          requestId,
          type: 'assistant',
          uuid,
          timestamp: this.time(),
        }),
      );
    });
    return uuids;
  }

  /** A tool result answering `toolUseId`, parented on the assistant fragment that made the call. */
  result(toolUseId: string, callFragment: string, content: string | Json[], options: { toolUseResult?: unknown; isError?: boolean; parent?: string } = {}): string {
    const uuid = this.nextUuid();
    return this.push({
      ...this.common(options.parent ?? callFragment),
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, ...(options.isError !== undefined ? { is_error: options.isError } : {}) }] },
      uuid,
      timestamp: this.time(),
      ...(options.toolUseResult !== undefined ? { toolUseResult: options.toolUseResult } : {}),
      sourceToolAssistantUUID: callFragment,
    });
  }

  system(subtype: string | undefined, content: string, extra: Json = {}, options: { parent?: string | null } = {}): string {
    const uuid = this.nextUuid();
    return this.push({ ...this.common(options.parent), type: 'system', ...(subtype ? { subtype } : {}), content, isMeta: false, timestamp: this.time(), uuid, level: 'info', ...extra });
  }

  /**
   * A compaction: the boundary (parentUuid null, logicalParentUuid naming the
   * last message before it) and, on the very next line, the summary.
   */
  compact(summary: string, preserved: string[]): { boundary: string; summary: string } {
    const logicalParent = this.last;
    const boundary = this.system(
      'compact_boundary',
      'Conversation compacted',
      { logicalParentUuid: logicalParent, compactMetadata: { trigger: 'auto', preTokens: 150000, preservedMessages: { uuids: preserved, allUuids: [...preserved, logicalParent] } } },
      { parent: null },
    );
    const uuid = this.nextUuid();
    const summaryId = this.push({ ...this.common(boundary), type: 'user', message: { role: 'user', content: summary }, isCompactSummary: true, isVisibleInTranscriptOnly: true, uuid, timestamp: this.time() });
    return { boundary, summary: summaryId };
  }

  attachment(attachment: Json, options: { parent?: string | null } = {}): string {
    const uuid = this.nextUuid();
    return this.push({ ...this.common(options.parent), type: 'attachment', attachment, uuid, timestamp: this.time() });
  }

  /** A record type that carries no uuid: last-prompt, file-history-snapshot, permission-mode … */
  bookkeeping(record: Json): void {
    this.append(JSON.stringify({ ...record, sessionId: this.options.session }));
  }

  /** A line written as is, for malformed input. */
  raw(line: string): void {
    this.append(line);
  }

  /** The transcript as file content: every line ends with a newline. */
  text(): string {
    return this.lines.map((line) => `${line}\n`).join('');
  }

  /**
   * The lines written since the last drain, as file content, and forgets
   * them, so a large transcript can be written out in pieces. `bytes` and
   * `last` still count everything.
   */
  drain(): string {
    const content = this.text();
    this.lines.length = 0;
    return content;
  }
}

export function textBlock(text: string): Json {
  return { type: 'text', text };
}

export function thinkingBlock(signatureLength = 400): Json {
  return { type: 'thinking', thinking: '', signature: 'E'.repeat(signatureLength) };
}

export function toolUseBlock(id: string, name: string, input: Json): Json {
  return { type: 'tool_use', id, name, input, caller: { type: 'direct' } };
}

export function imageBlock(bytes: number): Json {
  return imageDataBlock('image/png', Buffer.alloc(bytes, 7));
}

/** An image block of these bytes, declared as `mediaType`, whatever the bytes are. */
export function imageDataBlock(mediaType: string, bytes: Buffer): Json {
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: bytes.toString('base64') } };
}
