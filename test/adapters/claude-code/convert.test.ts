import { beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeConverter } from '../../../src/adapters/claude-code/convert.ts';
import { parsedPayloadOf, type LandedHeader, type LandedRecord } from '../../../src/landing/landed-file.ts';
import { digestOf } from '../../../src/files/digest.ts';
import { SessionDataDerivation } from '../../../src/session-data/derive.ts';
import type { SessionDataRow } from '../../../src/session-data/format.ts';
import { FIXTURE_AGENTS, FIXTURE_RUN, FIXTURE_SESSIONS } from '../../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, landedOf, sessionDataOf, temporaryFolder } from '../../helpers.ts';

// Every test reads the `.sd` that collection wrote for a hazard fixture and
// checks the reading the seed says is right, and that the obvious wrong
// reading is not what came out.

let data: string;
beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

function rows(session: string, place = 'streams/main/transcript'): SessionDataRow[] {
  return landedOf(data, session)
    .filter((file) => file.relative.startsWith(place))
    .flatMap((file) => sessionDataOf(file.path).rows);
}

describe('Claude Code records as .sd', () => {
  it('keeps a bare-string toolUseResult as the result’s data and an explicit failure as failed', () => {
    const result = rows(FIXTURE_SESSIONS.bareStringResult).flatMap((row) => row.parts).find((part) => part.k === 'result');
    expect(result).toEqual({ k: 'result', state: 'available', bytes: 35, of: 'toolu_bare01', text: 'rm: /tmp/scratch: Permission denied', failed: true, data: 'Error: rm: /tmp/scratch: Permission denied' });
  });

  it('reads every block of [image, text] content, so the prompt is the text and the image is media', () => {
    const [prompt] = rows(FIXTURE_SESSIONS.imageAndText);
    expect(prompt!.parts.map((part) => part.k)).toEqual(['media', 'text']);
    expect(prompt!.parts[0]).toMatchObject({ k: 'media', media_type: 'image/png', bytes: 600, state: 'available' });
    expect(prompt!.parts[1]).toMatchObject({ text: 'What is wrong in this screenshot?' });
    expect(prompt!.from).toBe('person');
    expect(prompt!.trigger).toBe('external');
    expect(prompt!.flags).toContain('external_input');
  });

  it('marks withheld reasoning unavailable and names the dropped signature with its size', () => {
    const call = rows(FIXTURE_SESSIONS.compaction).find((row) => row.parts.some((part) => part.k === 'reasoning'))!;
    expect(call.parts[0]).toEqual({ k: 'reasoning', state: 'unavailable', bytes: 0, text: '' });
    expect(call.dropped).toEqual([{ what: 'reasoning signature', bytes: 400, why: 'a provider verifies it; a reader cannot read it' }]);
  });

  it('gives provider-call fragments the message id as call, usage, model and stop reason', () => {
    const fragments = rows(FIXTURE_SESSIONS.parallelLinear).filter((row) => row.call === 'msg_parallel_linear_01');
    expect(fragments.length).toBe(2);
    expect(fragments.map((row) => row.parts[0]!.k)).toEqual(['call', 'call']);
    expect(fragments[0]!).toMatchObject({ from: 'agent', model: 'claude-opus-4-5', stop: 'tool_use', usage: { input: 100, output: 20, cache_read: 1000, cache_write: 50 } });
    expect(fragments[0]!.flags).toContain('finished');
    // A tool result is the tool's output, in the user role: not a person.
    const results = rows(FIXTURE_SESSIONS.parallelLinear).filter((row) => row.parts.some((part) => part.k === 'result'));
    expect(results.map((row) => row.from)).toEqual(['tool', 'tool']);
    expect(results.every((row) => row.call === undefined)).toBe(true);
  });

  it('carries both halves of a compaction: the boundary’s continues, and the summary that follows it', () => {
    const all = rows(FIXTURE_SESSIONS.compaction);
    const boundary = all.find((row) => row.flags?.includes('context_reset'))!;
    const summary = all[all.indexOf(boundary) + 1]!;
    expect(boundary.parent).toBeUndefined();
    expect(boundary.continues).toBe(all[all.indexOf(boundary) - 1]!.id);
    expect(summary.parent).toBe(boundary.id);
    expect(summary.flags).toContain('reset_summary');
    expect(summary.flags).not.toContain('external_input');
    expect(summary.flags).not.toContain('apparent_input');
  });

  it('names the child a completed Agent call returned, and the call and child a completion notice names', () => {
    const main = rows(FIXTURE_SESSIONS.nestedAgents);
    const returned = main.find((row) => row.child === FIXTURE_AGENTS.nestedOuter)!;
    expect(returned.flags).toContain('child_result');
    const notice = main.find((row) => row.parts.some((part) => part.k === 'text' && part.text.startsWith('<task-notification>')))!;
    expect(notice).toMatchObject({ tool: 'toolu_skill01', child: FIXTURE_AGENTS.nestedInner });
    // A runtime-written notice in the user role is not a person's prompt.
    expect(notice.from).toBe('runtime');
    expect(notice.flags ?? []).not.toContain('apparent_input');
  });

  it('reads a nested child’s sidecar as the agent that started it, and a direct child’s as the call', () => {
    const inner = rows(FIXTURE_SESSIONS.nestedAgents, `streams/${FIXTURE_AGENTS.nestedInner}/meta`);
    expect(inner).toEqual([expect.objectContaining({ child: FIXTURE_AGENTS.nestedInner, started_by: FIXTURE_AGENTS.nestedOuter, from: 'runtime' })]);
    const outer = rows(FIXTURE_SESSIONS.nestedAgents, `streams/${FIXTURE_AGENTS.nestedOuter}/meta`);
    expect(outer).toEqual([expect.objectContaining({ child: FIXTURE_AGENTS.nestedOuter, tool: 'toolu_agent01', label: 'Survey packages' })]);
    const child = rows(FIXTURE_SESSIONS.nestedAgents, `streams/${FIXTURE_AGENTS.nestedOuter}/transcript`);
    expect(child.every((row) => row.flags?.includes('sidechain'))).toBe(true);
    // A child's first prompt comes from its parent agent, not from a person.
    expect(child[0]!.flags).not.toContain('apparent_input');
  });

  it('reads a workflow run: the launch acknowledgement, the journal’s children and results, the manifest and scripts', () => {
    const launch = rows(FIXTURE_SESSIONS.workflow).find((row) => row.batch === FIXTURE_RUN)!;
    expect(launch.flags).toContain('launch_ack');
    expect(launch.flags).not.toContain('child_result');
    const journal = rows(FIXTURE_SESSIONS.workflow, `runs/${FIXTURE_RUN}/journal`);
    expect(journal.map((row) => [row.child, row.flags])).toEqual([
      [FIXTURE_AGENTS.workflowFirst, ['structural']],
      [FIXTURE_AGENTS.workflowFirst, ['structural', 'child_result']],
      [FIXTURE_AGENTS.workflowSecond, ['structural']],
      [FIXTURE_AGENTS.workflowSecond, ['structural', 'child_result']],
      ['a0000000000000003', ['structural']],
    ]);
    expect(rows(FIXTURE_SESSIONS.workflow, `runs/${FIXTURE_RUN}/manifest`)).toEqual([expect.objectContaining({ batch: FIXTURE_RUN, label: 'review-modules' })]);
    const scripts = rows(FIXTURE_SESSIONS.workflow, `runs/${FIXTURE_RUN}/script`);
    expect(scripts.length).toBe(2);
    expect(scripts[0]!.parts[0]).toMatchObject({ k: 'data', state: 'available' });
    // A child transcript's toolUseResult is the error-string form.
    const childResult = rows(FIXTURE_SESSIONS.workflow, `streams/${FIXTURE_AGENTS.workflowFirst}/transcript`).flatMap((row) => row.parts).find((part) => part.k === 'result');
    expect(childResult).toMatchObject({ failed: true, data: 'Error: File does not exist.' });
  });

  it('flags typed input as apparent when an older version stated no origin, and never as observed', () => {
    const legacy = rows(FIXTURE_SESSIONS.legacyAgents);
    expect(legacy[0]!.flags).toEqual(['apparent_input']);
    expect(legacy[0]!.trigger).toBeUndefined();
    expect(legacy[0]!.from).toBe('person');
    const summary = legacy.at(-1)!;
    expect(summary).toMatchObject({ leaf: legacy.at(-2)!.id, flags: ['structural'] });
    expect(summary.parts[0]).toMatchObject({ k: 'text', text: 'Finding a flaky test' });
    const child = rows(FIXTURE_SESSIONS.legacyAgents, `streams/${FIXTURE_AGENTS.legacy}/transcript`);
    expect(child.length).toBe(2);
  });

  it('keeps what it cannot describe as unknown parts with their bytes, and every record has a row', () => {
    const all = rows(FIXTURE_SESSIONS.malformedLines);
    const unknown = all.flatMap((row) => row.parts).filter((part) => part.k === 'unknown');
    expect(unknown.map((part) => (part.k === 'unknown' ? [part.why, part.raw] : []))).toEqual([
      ['the record is not valid JSON', '{"type":"user","message":{"role":"user","content":"cut off'],
      ['the record is not valid JSON', ''],
      ['the record is not valid UTF-8', Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString('base64')],
      ['block type "hologram" is not one this adapter describes', '{"type":"hologram","frames":2}'],
    ]);
    const attachment = all.find((row) => row.flags?.includes('injected'))!;
    expect(attachment.parts).toEqual([{ k: 'data', state: 'available', bytes: 45, data: { type: 'future_attachment_kind', widgets: 3 } }]);
    const snapshot = all.find((row) => row.flags?.includes('structural'))!;
    expect(snapshot.parts[0]).toMatchObject({ k: 'data', data: { messageId: expect.any(String), snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false } });
  });

  it('gives each duplicate copy its own row, so that assembly can keep the first', () => {
    const all = rows(FIXTURE_SESSIONS.duplicates);
    const ids = all.map((row) => row.id).filter((id) => id !== undefined);
    const twice = ids.filter((id, index) => ids.indexOf(id) !== index);
    expect(twice.length).toBe(4);
    expect(new Set(twice).size).toBe(4);
  });

  it('marks a long tool output whose full text is in the landed record as available, with its size', () => {
    const result = rows(FIXTURE_SESSIONS.hugeLine).flatMap((row) => row.parts).find((part) => part.k === 'result')!;
    expect(result.state).toBe('available');
    expect(result.bytes).toBeGreaterThan(750_000);
  });
});

describe('a record whose strings are bytes', () => {
  // Collection parses most lines as strings of UTF-8 bytes (ParsedJson in
  // json-text.ts); verification parses them as text. Both must write the
  // same row, byte for byte, or a deep verify would fail a good export.
  const header: LandedHeader = { h: 1, seq: 1, at: '2026-03-01T10:00:00.000Z', kind: 'transcript', adapter: 'claude-code', src: 'x.jsonl', session: 's', stream: 'main', state: 'available' };
  const records: unknown[] = [
    { type: 'user', uuid: 'u1', message: { role: 'user', content: 'héllo → 日本語 🎉 and a long enough text to be copied from its source bytes, surely' } },
    { type: 'user', uuid: 'u2', message: { role: 'user', content: [{ type: 'text', text: 'à' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=é' } }] } },
    { type: 'assistant', uuid: 'a1', message: { id: 'm1', model: 'm', content: [{ type: 'thinking', thinking: 'pensée', signature: 'sïg' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo "ünïcode" \u001b[0m', clé: 'valeur' } }] } },
    { type: 'user', uuid: 'u3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sortie ✓' }, { type: 'tool_reference', nom: 'é' }] }] }, toolUseResult: { stdout: 'sortie ✓', stderr: '' } },
    { type: 'user', uuid: 'u4', message: { role: 'user', content: '<task-notification><tool-use-id> toolu_2à</tool-use-id><task-id>a0123456789abcdef0</task-id></task-notification>' } },
    { type: 'assistant', uuid: 'a2', message: { id: 'm2', content: [{ type: 'bloc_inconnu_é', données: [1, 2] }] } },
    { type: 'progress', uuid: 'p1', données: { étape: 'un', 'clé longue avec des accents pour dépasser le seuil': 'x'.repeat(80) } },
    { type: 'summary', summary: '要約', leafUuid: 'a2' },
    { type: 'attachment', uuid: 'x1', attachment: { type: 'edited_text_file', filename: 'C:\\Users\\José\\données.py', snippet: 'é' } },
    { type: 'attachment', uuid: 'x2', attachment: { type: 'hook_success', hookName: 'PostToolUse:Édit', hookEvent: 'PostToolUse', content: 'état ✓', durationMs: 12 } },
    { type: 'system', uuid: 'x3', content: '\u001b[1mStop\u001b[22m [échoué] failed with non-blocking status code 1: à' },
  ];

  it('writes the same row as when its strings are text', () => {
    let bytesRows = 0;
    for (const [index, value] of records.entries()) {
      const payload = Buffer.from(JSON.stringify(value), 'utf8');
      const record: LandedRecord = { ord: index + 1, off: 0, sha: digestOf(payload), encoding: 'raw', payload };
      const parsed = parsedPayloadOf(payload).parsed!;
      if (parsed.stringsAsBytes) bytesRows++;
      const asBytes = new SessionDataDerivation(header, claudeCodeConverter, 'x.jsonl').row(record, index + 1, parsed);
      const asText = new SessionDataDerivation(header, claudeCodeConverter, 'x.jsonl').row(record, index + 1);
      const written = (line: string, encoding: 'utf8' | 'latin1') => Buffer.from(line, encoding).toString('utf8');
      expect(asBytes.encoding).toBe('latin1');
      expect(written(asBytes.line, asBytes.encoding), JSON.stringify(value)).toBe(written(asText.line, asText.encoding));
      expect(written(asText.line, 'utf8')).toBe(`${JSON.stringify(asText.row)}\n`);
    }
    expect(bytesRows).toBe(records.length);
  });

  it('reports an unknown shape by its text, not its bytes', () => {
    const payload = Buffer.from(JSON.stringify(records[5]), 'utf8');
    const derivation = new SessionDataDerivation(header, claudeCodeConverter, 'x.jsonl');
    derivation.row({ ord: 1, off: 0, sha: digestOf(payload), encoding: 'raw', payload }, 1, parsedPayloadOf(payload).parsed);
    expect([...derivation.unknownShapes.keys()]).toEqual(['block type "bloc_inconnu_é" is not one this adapter describes']);
  });
});

describe('runtime records as notices', () => {
  // What the adapter states of a runtime record in the model's words, so
  // that a page names it without knowing Claude Code's fields.
  const header: LandedHeader = { h: 1, seq: 1, at: '2026-03-01T10:00:00.000Z', kind: 'transcript', adapter: 'claude-code', src: 'x.jsonl', session: 's', stream: 'main', state: 'available' };
  const noticeOf = (value: unknown): SessionDataRow['notice'] => {
    const payload = Buffer.from(JSON.stringify(value), 'utf8');
    const record: LandedRecord = { ord: 1, off: 0, sha: digestOf(payload), encoding: 'raw', payload };
    return new SessionDataDerivation(header, claudeCodeConverter, 'x.jsonl').row(record, 1).row.notice;
  };
  const system = (subtype: string | undefined, fields: Record<string, unknown>): unknown => ({ type: 'system', ...(subtype ? { subtype } : {}), uuid: 'x1', timestamp: '2026-03-01T10:00:00.000Z', ...fields });
  const attachment = (fields: Record<string, unknown>): unknown => ({ type: 'attachment', uuid: 'x2', timestamp: '2026-03-01T10:00:00.000Z', attachment: fields });

  it('names a finished turn by how long it took, and not by its field names', () => {
    expect(noticeOf(system('turn_duration', { durationMs: 92641, messageCount: 35 }))).toEqual({ kind: 'turn', ms: 92641 });
  });

  it('states a compaction’s trigger and its tokens before and after', () => {
    expect(noticeOf(system('compact_boundary', { content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 173429, postTokens: 7850, durationMs: 135906 } }))).toEqual({ kind: 'compaction', trigger: 'automatic', tokens_before: 173429, tokens_after: 7850, ms: 135906 });
    expect(noticeOf(system('compact_boundary', { compactMetadata: { trigger: 'manual', preTokens: 50000 } }))).toEqual({ kind: 'compaction', trigger: 'manual', tokens_before: 50000 });
    expect(noticeOf(system('compact_boundary', {}))).toEqual({ kind: 'compaction' });
  });

  it('names hooks by their event, from an attachment, a stop summary or the plain text of older versions', () => {
    expect(noticeOf(attachment({ type: 'hook_success', hookName: 'PostToolUse:Bash', hookEvent: 'PostToolUse', content: 'Status set to busy', durationMs: 92 }))).toEqual({ kind: 'hook', name: 'PostToolUse', ms: 92 });
    expect(noticeOf(attachment({ type: 'hook_non_blocking_error', hookName: 'PreToolUse:Edit' }))).toEqual({ kind: 'hook', name: 'PreToolUse', failed: true });
    expect(noticeOf(system('stop_hook_summary', { hookCount: 2, hookInfos: [{ command: 'a', durationMs: 102 }, { command: 'b', durationMs: 8 }], hookErrors: [] }))).toEqual({ kind: 'hook', name: 'Stop', count: 2, ms: 110 });
    // A hook that does not say how long it took leaves the sum unknown rather than short.
    expect(noticeOf(system('stop_hook_summary', { hookCount: 2, hookInfos: [{ command: 'a', durationMs: 102 }, { command: 'b' }], hookErrors: ['b failed'] }))).toEqual({ kind: 'hook', name: 'Stop', count: 2, failed: true });
    expect(noticeOf(system(undefined, { content: 'Running \u001b[1mPostToolUse:Edit\u001b[22m...', toolUseID: 'toolu_01' }))).toEqual({ kind: 'hook', name: 'PostToolUse' });
    expect(noticeOf(system(undefined, { content: '\u001b[1mStop\u001b[22m [make lint] failed with non-blocking status code 1: No stderr output' }))).toEqual({ kind: 'hook', name: 'Stop', failed: true });
  });

  it('names a recap, reminders, files, a failed request and the context the runtime lists', () => {
    expect(noticeOf(system('away_summary', { content: 'Added the bulk actions. (disable recaps in /config)' }))).toEqual({ kind: 'recap' });
    expect(noticeOf(attachment({ type: 'task_reminder', content: [], itemCount: 0 }))).toEqual({ kind: 'reminder', name: 'task list', count: 0 });
    expect(noticeOf(attachment({ type: 'edited_text_file', filename: '/work/app/main.py', snippet: '1\tprint()' }))).toEqual({ kind: 'file_change', name: '/work/app/main.py' });
    expect(noticeOf(attachment({ type: 'compact_file_reference', filename: '/work/app/views/lead.xml', displayPath: 'views/lead.xml' }))).toEqual({ kind: 'file', name: 'views/lead.xml' });
    expect(noticeOf(attachment({ type: 'deferred_tools_delta', addedNames: ['WebFetch', 'WebSearch'], addedLines: [] }))).toEqual({ kind: 'context', name: 'Tools made available', count: 2 });
    expect(noticeOf(attachment({ type: 'date_change', newDate: '2026-04-29' }))).toEqual({ kind: 'context', name: 'Date changed to 2026-04-29' });
    expect(noticeOf(system('api_error', { level: 'error', cause: { code: 'FailedToOpenSocket' }, retryInMs: 529.87, retryAttempt: 1, maxRetries: 10 }))).toEqual({ kind: 'request_error', name: 'FailedToOpenSocket', attempt: 1, attempts: 10, ms: 530 });
  });

  it('gives no notice to a record it does not name, nor to a message', () => {
    expect(noticeOf(system('some_future_subtype', { content: 'x' }))).toBeUndefined();
    expect(noticeOf(system(undefined, { content: 'Plain text with no hook in it' }))).toBeUndefined();
    expect(noticeOf(attachment({ type: 'some_future_attachment', value: 1 }))).toBeUndefined();
    expect(noticeOf({ type: 'user', uuid: 'u', message: { role: 'user', content: 'hello' } })).toBeUndefined();
    expect(noticeOf({ type: 'assistant', uuid: 'a', message: { id: 'm', model: 'm', content: [{ type: 'text', text: 'hi' }] } })).toBeUndefined();
  });
});
