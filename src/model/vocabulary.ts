// The model's words for what a record is and what its content is. These are
// runtime-agnostic: no agent product's field names belong here. An adapter
// maps its runtime onto them (src/adapters/<runtime>/), and its glossary says
// what the runtime calls each one.

/**
 * How much of a piece of content we actually hold.
 *   available    all of it
 *   truncated    part of it; `bytes` says how large the whole was
 *   redacted     removed on purpose, by the runtime or by an export
 *   unavailable  the runtime never recorded it (withheld reasoning is the usual case)
 */
export const CONTENT_STATES = ['available', 'truncated', 'redacted', 'unavailable'] as const;
export type ContentState = (typeof CONTENT_STATES)[number];

/**
 * What a part of a record is (seed design-notes/03 §4.4).
 *   text       readable text
 *   reasoning  the model's own reasoning
 *   call       a request to run something: a tool, a command, a child agent
 *   result     what a call returned
 *   media      an image or a document
 *   data       structured content that is not prose: injected context given
 *              as fields, a sidecar, a journal entry, a record with no message
 *   unknown    the adapter could not describe it; the bytes are kept
 */
export const PART_KINDS = ['text', 'reasoning', 'call', 'result', 'media', 'data', 'unknown'] as const;
export type PartKind = (typeof PART_KINDS)[number];

/**
 * What started the agent loop a record belongs to, when the record says so.
 *   external      a person, or a program acting for one, outside the agent
 *   notification  a completion notice from work the agent started earlier
 *   unknown       the record names a cause the adapter does not recognise
 * No trigger at all means the record states none, which is different from
 * unknown and is never filled in by guessing.
 */
export const TRIGGERS = ['external', 'notification', 'unknown'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/**
 * Who produced a record. The runtime's record type is not an answer: most
 * records in the user role are tool output, and few were typed by a person
 * (seed CLAUDE.md).
 *   agent    the model, through a provider call
 *   person   input from outside the agent, as the record states it
 *   tool     the output of a call
 *   runtime  the harness itself: injected context, notices, bookkeeping
 */
export const PRODUCERS = ['agent', 'person', 'tool', 'runtime'] as const;
export type Producer = (typeof PRODUCERS)[number];

/**
 * Facts about a record's shape that assembly and display need. Each is set
 * only from what the record states.
 */
export const RECORD_FLAGS = {
  synthetic: 'made by the client, not returned by a provider: a refusal, an error stand-in',
  context_reset: 'a boundary after which the model starts a new context (an epoch boundary)',
  reset_summary: 'the summary that opens a new context after a reset',
  finished: 'the provider said why it stopped, so the usage on this call is final',
  external_input: 'input from outside the agent, as the record itself states',
  apparent_input: 'shaped like typed input, but the record states no origin: older runtimes never did',
  injected: 'context the harness put into the conversation, not something a person said',
  child_result: 'carries what a child agent returned',
  launch_ack: 'acknowledges that a child agent started; it is not the child’s result',
  error: 'a failed provider request, possibly followed by a retry',
  turn_duration: 'a timing notice for a finished turn',
  command: 'a local command the person ran, not a model turn',
  notice: 'any other notice from the harness',
  sidechain: 'written by a child agent rather than the main agent',
  queued: 'held in the runtime’s input queue while the agent was busy',
  interrupt: 'marks that the person interrupted the agent',
  structural: 'bookkeeping that is not part of the conversation: progress, snapshots, pointers, settings',
} as const;
export type RecordFlag = keyof typeof RECORD_FLAGS;

/**
 * Where a conversation's title comes from, in the order one is chosen.
 *   custom-title  a title the person gave the conversation
 *   ai-title      a title the runtime generated for it
 *   summary        the runtime's summary of the active branch, found by the leaf it names,
 *                  in the session's own file or in another session's
 *   first-prompt   the first prompt a person typed, when the runtime gave no title
 *   slash-command  the first slash command a person ran, with its arguments, when it
 *                  came before any prompt, or when no prompt was typed
 */
export const TITLE_SOURCES = ['custom-title', 'ai-title', 'summary', 'first-prompt', 'slash-command'] as const;
export type TitleSource = (typeof TITLE_SOURCES)[number];
/** The title sources a record itself names: the others are read from prompts and commands. */
export type RecordTitleSource = Exclude<TitleSource, 'first-prompt' | 'slash-command'>;
