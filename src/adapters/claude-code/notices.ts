// Claude Code's runtime records as notices, in the model's words
// (model/notices.ts): the system records it writes by subtype, the
// attachments it adds by type, and the hook lines older versions wrote as
// plain system text. A record this does not recognise has no notice, and a
// page sums it up from its content as before.
//
// The strings taken are in the form of the record's other strings (bytes or
// text, see convert.ts), and are taken whole or split only at ASCII
// characters, so that both forms give the same row.

import type { Notice, NoticeTrigger } from '../../model/notices.ts';
import { isObject, text, type JsonObject as Json } from './json-fields.ts';

/** The notice of a record of type `type`, or undefined when it is not a runtime record this adapter names. */
export function noticeOf(type: string, value: Json, attachment: Json | undefined): Notice | undefined {
  if (type === 'system') return systemNotice(value);
  if (type === 'attachment' && attachment !== undefined) return attachmentNotice(attachment);
  return undefined;
}

function systemNotice(value: Json): Notice | undefined {
  switch (value.subtype) {
    case 'turn_duration':
      return withFields({ kind: 'turn' }, { ms: milliseconds(value.durationMs) });
    case 'compact_boundary': {
      const metadata = isObject(value.compactMetadata) ? value.compactMetadata : {};
      return withFields(
        { kind: 'compaction' },
        { trigger: triggerOf(metadata.trigger), tokens_before: count(metadata.preTokens), tokens_after: count(metadata.postTokens), ms: milliseconds(metadata.durationMs) },
      );
    }
    case 'away_summary':
      return { kind: 'recap' };
    case 'stop_hook_summary': {
      // The hooks Claude Code ran when the turn stopped, each with how long it took when it says.
      const infos = Array.isArray(value.hookInfos) ? value.hookInfos.filter(isObject) : [];
      const times = infos.map((info) => milliseconds(info.durationMs));
      const errors = Array.isArray(value.hookErrors) ? value.hookErrors.length : 0;
      return withFields(
        { kind: 'hook', name: 'Stop' },
        { count: count(value.hookCount), ms: times.length > 0 && times.every((time) => time !== undefined) ? times.reduce((sum, time) => sum + time!, 0) : undefined, failed: errors > 0 ? true : undefined },
      );
    }
    case 'api_error': {
      const cause = isObject(value.cause) ? value.cause : isObject(value.error) && isObject(value.error.cause) ? value.error.cause : undefined;
      return withFields(
        { kind: 'request_error' },
        { name: text(cause?.code), attempt: count(value.retryAttempt), attempts: count(value.maxRetries), ms: milliseconds(value.retryInMs) },
      );
    }
    case undefined:
      return hookLine(text(value.content));
  }
  return undefined;
}

// Versions of 2025 wrote each hook as system text with no subtype: the
// event and matcher in bold ("Running \e[1mPostToolUse:Edit\e[22m..."), then
// its command and how it ended.
const HOOK_LINE = /^(?:Running )?\u001b\[1m([A-Za-z]+)(?::[^\u001b]*)?\u001b\[22m/;

function hookLine(content: string | undefined): Notice | undefined {
  const event = content === undefined ? undefined : HOOK_LINE.exec(content)?.[1];
  if (event === undefined) return undefined;
  return withFields({ kind: 'hook', name: event }, { failed: content!.includes('] failed with ') ? true : undefined });
}

/**
 * The context Claude Code adds that it names by type, each in full. A Map:
 * the type is the transcript's word, and may be `constructor` or `__proto__`.
 */
const CONTEXT_NAMES: ReadonlyMap<string, string> = new Map([
  ['deferred_tools_delta', 'Tools made available'],
  ['skill_listing', 'Skills listed'],
  ['command_permissions', 'Command permissions'],
  ['plan_mode', 'Plan mode'],
  ['plan_mode_reentry', 'Plan mode again'],
  ['plan_mode_exit', 'Plan mode left'],
  ['output_style', 'Output style'],
  ['critical_system_reminder', 'System reminder'],
]);

function attachmentNotice(attachment: Json): Notice | undefined {
  const type = text(attachment.type);
  if (type === undefined) return undefined;
  if (type.startsWith('hook_')) {
    // hookEvent names the event; hookName adds the matcher ("PostToolUse:Bash"), and is all some records have.
    const name = text(attachment.hookEvent) ?? text(attachment.hookName)?.split(':')[0];
    const failed = type.includes('error') || type === 'hook_cancelled';
    return withFields({ kind: 'hook' }, { name, ms: milliseconds(attachment.durationMs), failed: failed ? true : undefined });
  }
  switch (type) {
    case 'task_reminder':
      return withFields({ kind: 'reminder', name: 'task list' }, { count: count(attachment.itemCount) });
    case 'todo_reminder':
      return withFields({ kind: 'reminder', name: 'to-do list' }, { count: count(attachment.itemCount) });
    case 'file':
    case 'compact_file_reference':
      return withFields({ kind: 'file' }, { name: text(attachment.displayPath) ?? text(attachment.filename) });
    case 'edited_text_file':
    case 'edited_image_file':
      return withFields({ kind: 'file_change' }, { name: text(attachment.displayPath) ?? text(attachment.filename) });
    case 'date_change': {
      const date = text(attachment.newDate);
      return { kind: 'context', name: date !== undefined ? `Date changed to ${date}` : 'Date changed' };
    }
    case 'deferred_tools_delta': {
      const added = Array.isArray(attachment.addedNames) ? attachment.addedNames.length : undefined;
      return withFields({ kind: 'context', name: CONTEXT_NAMES.get(type)! }, { count: added });
    }
  }
  const name = CONTEXT_NAMES.get(type);
  return name !== undefined ? { kind: 'context', name } : undefined;
}

/** A notice with the fields that are known: an absent field is left out, never written as undefined or guessed. */
function withFields(notice: Notice, fields: Partial<Notice>): Notice {
  const known = Object.entries(fields).filter(([, field]) => field !== undefined);
  return { ...notice, ...Object.fromEntries(known) } as Notice;
}

function triggerOf(value: unknown): NoticeTrigger | undefined {
  if (value === 'manual') return 'manual';
  if (value === 'auto') return 'automatic';
  return undefined;
}

/** A whole, non-negative count. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A duration in whole milliseconds; Claude Code writes some (a retry's wait) with a fraction. */
function milliseconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
}
