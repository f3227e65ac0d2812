// What Claude Code calls each thing the model names, and where to find it.
//
// The model's words are the project's, but a person debugging their own
// session recognises promptId, not "run". So every name the model can emit
// has an entry here (a test fails otherwise), and three rules keep the table
// honest (seed design-notes/03 §4.7):
//   - an empty native name is an answer: the runtime has no word for it;
//   - a native name says where it is found, not only what it is called;
//   - the table sits beside the conversion code, so a rename changes both.

import type { Glossary, GlossaryEntry } from '../adapter.ts';

export const GLOSSARY_DIALECT = 'claude-code/1';

const NONE = (why: string): GlossaryEntry => ({ native: '', where: why });
const AT = (native: string, where: string): GlossaryEntry => ({ native, where });

export const GLOSSARY: Record<string, GlossaryEntry> = {
  // Containers.
  session: AT('sessionId', 'the transcript file name <session>.jsonl and every record’s sessionId'),
  stream: AT('agentId', 'main transcript, or subagents/agent-<agentId>.jsonl; never isSidechain, which is absent on many main records'),
  epoch: NONE('derived here: the records between two system records of subtype compact_boundary'),
  talk: NONE('derived here: starts at a user record with origin.kind "human", or at a promptId with no origin'),
  run: AT('promptId', 'on user records; assistant records reach it through parentUuid'),
  segment: NONE('derived here from idle gaps; Claude Code records no session end'),
  branch: AT('rewind (parentUuid of a re-typed prompt), last-prompt.leafUuid', 'a second prompt whose parentUuid is an earlier record; leafUuid names the active leaf'),
  structural_fork: NONE('derived here: bookkeeping beside the conversation'),
  parallel_tools: AT('parallel tool_use', 'tool_use and tool_result records sharing one message.id parent'),
  retry: AT('system api_error', 'a failed request beside the reply that followed it'),
  compaction_replay: AT('re-written records before compact_boundary', 'copies with one timestamp'),
  local_commands: AT('<command-name>, <bash-input>', 'local commands hung beside the conversation'),
  unclassified: NONE('derived here: two conversational paths, none starting with a prompt'),
  // Steps.
  'message.external': AT('user record with origin.kind "human"', 'type "user", or an attachment of type queued_command with commandMode "prompt"'),
  'message.assistant': AT('assistant text block', 'type "assistant", message.content[].type "text"'),
  'message.synthetic': AT('message.model "<synthetic>"', 'an assistant record the client wrote: an error or a refusal'),
  'context.injection': AT('attachment, isMeta user record, system notice', 'type "attachment" (attachment.type), user records with isMeta true, system records'),
  'llm.call': AT('message.id', 'the assistant records sharing one message.id, in line order; never requestId'),
  thinking: AT('thinking block', 'message.content[].type "thinking"; the text is withheld, the signature kept'),
  tool: AT('tool_use + tool_result', 'an assistant tool_use block and the user record whose tool_result names its id'),
  'agent.call': AT('Agent, Task, Skill or Workflow tool_use', 'a tool_use whose result or journal names a child agent'),
  'agent.launch_ack': AT('toolUseResult.status "async_launched"', 'on the tool result of a call that started a child in the background'),
  'runtime.notification': AT('<task-notification>', 'user record text with <tool-use-id> and <task-id>; origin.kind "task-notification" where stated'),
  'epoch.boundary': AT('system compact_boundary', 'type "system", subtype "compact_boundary", with logicalParentUuid'),
  'epoch.summary': AT('isCompactSummary', 'the user record on the line after a compact_boundary'),
  'error.api': AT('system api_error', 'type "system", subtype "api_error", with retryAttempt'),
  'control.interrupt': AT('[Request interrupted by user]', 'user record text written by the runtime'),
  'control.command': AT('<command-name>, system local_command', 'user record text, or type "system" subtype "local_command"'),
  'turn.duration': AT('system turn_duration', 'type "system", subtype "turn_duration", durationMs'),
  // Relations.
  starts: AT('toolUseResult.agentId, journal started, meta toolUseId', 'parent tool result, subagents/workflows/<run>/journal.jsonl, agent-<id>.meta.json'),
  reports: AT('<tool-use-id>', 'inside a <task-notification>, naming the tool_use it completes'),
  follows: AT('logicalParentUuid', 'on the compact_boundary record; its parentUuid is null'),
  summarizes: AT('parentUuid of the isCompactSummary record', 'it names the compact_boundary record'),
  in_segment: NONE('derived here'),
  // Parts of a record.
  text: AT('text block, string content', 'message.content[].text, or message.content when it is a string'),
  reasoning: AT('thinking, redacted_thinking', 'message.content[].thinking; signature dropped'),
  call: AT('tool_use, server_tool_use', 'message.content[] with id, name, input'),
  result: AT('tool_result', 'message.content[] with tool_use_id, content, is_error; toolUseResult beside it'),
  media: AT('image, document', 'message.content[].source with media_type and base64 data'),
  data: AT('attachment fields, sidecar, journal line, manifest', 'anything structured that is not prose'),
  unknown: NONE('a shape this adapter does not describe; the bytes are kept'),
  // Record-level roles in .sd.
  id: AT('uuid', 'every conversational record; 28.6% of lines have none'),
  parent: AT('parentUuid', 'every conversational record; null at a root and on compact_boundary'),
  'role:call': AT('message.id', 'assistant records'),
  'role:run': AT('promptId', 'user records'),
  ts: AT('timestamp', 'every record; can step backwards'),
  trigger: AT('origin.kind', 'on the record, or on attachment.origin; reading only the first loses 27.6%'),
  continues: AT('logicalParentUuid', 'compact_boundary records only'),
  'role:tool': AT('toolUseResult.toolUseId, <tool-use-id>, parentToolUseID', 'tool results, notifications, progress and hook records'),
  child: AT('toolUseResult.agentId, journal agentId, <task-id>', 'the record naming a child agent'),
  batch: AT('toolUseResult.runId, wf_<run> folder', 'Workflow results and run folders'),
  started_by: AT('parentAgentId', 'a nested child’s agent-<id>.meta.json'),
  leaf: AT('leafUuid', 'summary and last-prompt records'),
  label: AT('aiTitle, customTitle, summary, description, workflowName', 'title and summary records, sidecars, manifests'),
  'role:title': AT('type "summary", "custom-title", "ai-title"', 'the record types that title a conversation'),
  cwd: AT('cwd', 'every conversational record'),
  git_branch: AT('gitBranch', 'every conversational record; "HEAD" when detached'),
  'role:prompt': AT('message.content, past <ide_opened_file>, <ide_selection> and hook text', 'user records a person typed'),
  project: AT('projects/<folder>/', 'the folder a transcript is found in, on the first row of each landed file'),
  model: AT('message.model', 'assistant records'),
  stop: AT('message.stop_reason', 'assistant records; on every fragment in a main transcript, only the last in a child'),
  from: NONE('derived here from the record’s role and content, never from type alone'),
  usage: AT('message.usage', 'assistant records; final on every main fragment, climbing partials in a child'),
  'role:notice': AT('system subtype, attachment.type', 'system records and attachments the adapter names (notices.ts); absent on any other'),
  // Notices: runtime records by what they are.
  hook: AT('attachment hook_*, system stop_hook_summary, "Running <event>:<matcher>"', 'hookEvent, hookName, durationMs; hookInfos and hookErrors on a stop summary; plain system text before subtypes'),
  turn: AT('system turn_duration', 'durationMs'),
  compaction: AT('system compact_boundary', 'compactMetadata.trigger ("auto", "manual"), preTokens, postTokens, durationMs'),
  recap: AT('system away_summary', 'its content'),
  reminder: AT('attachment task_reminder, todo_reminder', 'itemCount'),
  file: AT('attachment file, compact_file_reference', 'displayPath, filename'),
  file_change: AT('attachment edited_text_file, edited_image_file', 'filename'),
  request_error: AT('system api_error', 'cause.code, retryAttempt, maxRetries, retryInMs'),
  context: AT('attachment deferred_tools_delta, skill_listing, plan_mode, plan_mode_exit, date_change …', 'attachment.type'),
  // Record flags.
  synthetic: AT('message.model "<synthetic>"', 'assistant records'),
  context_reset: AT('compact_boundary', 'system records'),
  reset_summary: AT('isCompactSummary', 'user records'),
  finished: AT('message.stop_reason', 'assistant records'),
  external_input: AT('origin.kind "human"', 'user records and queued_command attachments'),
  apparent_input: NONE('derived here: a typed-input shape on versions that record no origin'),
  injected: AT('isMeta, attachment', 'user records with isMeta, attachment records'),
  child_result: AT('toolUseResult.status "completed", journal result', 'synchronous agent results and journal lines'),
  launch_ack: AT('toolUseResult.status "async_launched"', 'tool results'),
  error: AT('api_error', 'system records'),
  turn_duration: AT('turn_duration', 'system records'),
  command: AT('local_command, <command-name>, <command-message>, <bash-input>', 'system and user records'),
  notice: AT('system subtypes', 'any other system subtype: stop_hook_summary, away_summary …'),
  sidechain: AT('isSidechain', 'child transcripts'),
  queued: AT('queue-operation, queued_command', 'queue records and attachments'),
  interrupt: AT('[Request interrupted by user]', 'user records'),
  structural: AT('progress, file-history-snapshot, last-prompt, summary, permission-mode …', 'record types outside the conversation'),
  // Triggers and producers.
  external: AT('origin.kind "human"', 'records and attachments'),
  notification: AT('origin.kind "task-notification"', 'records and attachments'),
  agent: AT('type "assistant"', 'assistant records not made by the client'),
  person: AT('type "user" typed by a person', 'about 7% of user records'),
  runtime: NONE('the harness itself: no single field'),
  // Content states.
  available: NONE('the content is there'),
  truncated: AT('Full output saved to:, persistedOutputPath', 'tool results whose output was cut'),
  redacted: AT('redacted_thinking', 'assistant records'),
  unavailable: AT('thinking ""', 'withheld reasoning; anything the runtime did not record'),
  // Claim states and correlation qualities.
  observed_replayable: NONE('derived here: the landed evidence is kept'),
  observed_report_only: NONE('derived here'),
  proposed: NONE('derived here'),
  exact_unique: NONE('derived here'),
  exact_ambiguous: NONE('derived here'),
  strong_inference: NONE('derived here'),
  weak_inference: NONE('derived here'),
  unresolved: NONE('derived here'),
  conflict: NONE('derived here'),
  // Unresolved references.
  tool_result: AT('tool_use without tool_result', 'an assistant tool_use whose id no user record answers'),
  orphan_result: AT('tool_result without tool_use', 'a user record answering an id no assistant record asked'),
  notification_call: AT('<tool-use-id> not found', 'a notification naming a tool_use in none of the session’s files'),
  orphan_stream: AT('agent-<id>.jsonl with no parent', 'a child file nothing names'),
  child_stream: AT('agentId with no agent-<id>.jsonl', 'a result or journal naming a child whose file is missing'),
  epoch_parent: AT('logicalParentUuid not found', 'a compact_boundary naming a record that is not on disk'),
  open: NONE('derived here'),
  terminal: NONE('derived here'),
  resolved: NONE('derived here'),
};

// The names asked about are read from rounds, which a bundle brings: looked
// up in a Map, never through the prototype of GLOSSARY.
const BY_NAME: ReadonlyMap<string, GlossaryEntry> = new Map(Object.entries(GLOSSARY));

/** How a model name reads in the chosen terms. */
export function termFor(name: string, terms: 'unified' | 'native' | 'both'): string {
  if (terms === 'unified') return name;
  const native = (BY_NAME.get(name) ?? BY_NAME.get(`role:${name}`))?.native;
  if (terms === 'native') return native || name;
  return native ? `${name} (${native})` : name;
}

export const claudeCodeGlossary: Glossary = { dialect: GLOSSARY_DIALECT, entries: GLOSSARY, termFor };
