// What a record of the runtime is, in the model's words: a hook it ran, a
// turn that ended, a compaction, a recap, a reminder. An adapter knows its
// runtime's record types and fields (Claude Code's:
// adapters/claude-code/notices.ts) and states each one it recognises as a
// notice on the record's `.sd` row; the site names it in plain words from
// the notice alone.

export const NOTICE_KINDS = {
  hook: 'the runtime ran a hook on an event: before or after a tool, at a prompt, at the start of a session or the end of a turn',
  turn: 'a turn ended; how long it took',
  compaction: 'the context was compacted into a summary; how many tokens it held before and after',
  recap: 'a recap of the work so far, written by the runtime while the person was away',
  reminder: 'a reminder the runtime put into the context, such as the task list',
  file: 'a file the runtime read into the context',
  file_change: 'a file the runtime saw change outside the agent',
  request_error: 'a request to the provider failed and is tried again',
  context: 'any other context the runtime gave the model, named in full: tools or skills made available, a mode entered or left, the date',
} as const;
export type NoticeKind = keyof typeof NOTICE_KINDS;

export type NoticeTrigger = 'manual' | 'automatic';

export interface Notice {
  readonly kind: NoticeKind;
  /**
   * What the runtime calls the thing, in plain words: a hook's event
   * (`PostToolUse`), a file's path, a reminder's subject, a failed request's
   * error code; for `context`, the whole name (`Plan mode entered`).
   */
  readonly name?: string;
  /** How long it took, in milliseconds; for a `request_error`, the wait before the next try. */
  readonly ms?: number;
  /** A compaction's tokens of context before it and after it. */
  readonly tokens_before?: number;
  readonly tokens_after?: number;
  /** Whether a compaction was asked for (`/compact`) or made by the runtime. */
  readonly trigger?: NoticeTrigger;
  /** How many things it stands for: the hooks run, the items of a reminder. */
  readonly count?: number;
  /** For a `request_error`: which try failed, and of how many. */
  readonly attempt?: number;
  readonly attempts?: number;
  /** A hook that failed or was stopped. */
  readonly failed?: boolean;
}
