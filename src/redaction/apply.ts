// Applying a redaction plan to the bundle copied into an export folder. The
// storage zone is never touched: only the copy is rewritten, before the
// manifest, the site and the archive see it.
//
// What a redacted bundle is, and why each piece stays verifiable:
//   - A landed file with a secret is replaced by a derivative whose header
//     says `"derived":"redacted"`. Each changed record carries
//     `"redacted":<bytes removed>` and a `sha` over its new payload, so every
//     record still checks against its digest and none is presented as the
//     source bytes. The header keeps no digest of the original file on
//     purpose: with every other byte in the export, such a digest would let
//     anyone test guesses of a short secret (a password) offline.
//   - Its `.sd` is derived again from the derivative, so it names the new
//     bytes (`of_sha`) and `verify --deep` derives the same bytes again; the
//     parts that lost something are in state `redacted` (placeholder.ts).
//   - A round binds the digests of the landed files it read, so the chain of
//     a conversation whose evidence changed is built again from the redacted
//     bundle: one round for each round of the original, through the same
//     landed sequence, with the same parser and policy. It is the redacted
//     conversation's own chain; nothing of the original chain is kept. So is
//     the chain of one that carries summaries from other sessions' files
//     (usage-and-titles.md), which are not the bundle's redacted evidence.
//   - Branch and label records are named by their digest: one that changed
//     (a secret in a reason or summary, a user name as the actor, or the
//     digest of the round it was cut from, now the rebuilt round of the same
//     number) is written again under its new name.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PARSER_VERSION } from '../assembly/assemble.ts';
import { assemble } from '../parse/structure.ts';
import { loadSessionIndex } from '../index/session-index.ts';
import { PendingFile, READ_ONLY, writeOnce } from '../files/atomic-file.ts';
import { headerLine, readLandedFile, recordLine, type LandedHeader } from '../landing/landed-file.ts';
import { digestOf } from '../files/digest.ts';
import { sessionDataBeside } from '../landing/layout.ts';
import { deriveSessionData } from '../session-data/derive.ts';
import { appendRound, conversationFolder, readChain, readRound, roundFiles } from '../session-flow/chain.ts';
import { summariesCarried } from '../assembly/conversation-names.ts';
import { listFolder } from '../files/folders.ts';
import { decodeJsonString, jsonStrings, replaceJsonStrings, type JsonString } from './json-strings.ts';
import { redactionReport, REPORT_NAME } from './report.ts';
import { cut, recordFiles, type RedactionPlan, type StringCuts } from './scan.ts';
import type { Span } from './rules.ts';

export function applyRedaction(bundle: string, plan: RedactionPlan): void {
  const rebuilt = new Set<string>();
  for (const [file, filePlan] of plan.files) {
    if (filePlan.kind !== 'landed') continue;
    const landed = path.join(bundle, file);
    const converter = filePlan.dialect !== undefined ? plan.converterFor(filePlan.dialect) : undefined;
    if (!converter) throw new Error(`${file}: no converter for its .sd dialect ${filePlan.dialect ?? '(no .sd)'}, so the redacted copy's .sd cannot be derived`);
    const target = path.join(bundle, filePlan.to ?? file);
    rewriteLanded(landed, filePlan.rows, target);
    fs.rmSync(sessionDataBeside(landed), { force: true });
    if (target !== landed) {
      // The copy went to the folder its redacted stream or run id names; the
      // folder named by the secret goes once it holds nothing else.
      fs.rmSync(landed);
      if (fs.readdirSync(path.dirname(landed)).length === 0) fs.rmdirSync(path.dirname(landed));
    }
    deriveSessionData(target, converter);
    rebuilt.add(filePlan.conversation);
  }
  const conversations = new Set([...plan.files.values()].map((filePlan) => filePlan.conversation));
  // A summary a round carries from another session's file is not this bundle's redacted evidence: the chain is built again without it.
  for (const conversation of listFolder(path.join(bundle, '_conversations'))) {
    if (!carriesSummariesElsewhere(bundle, conversation)) continue;
    rebuilt.add(conversation);
    conversations.add(conversation);
  }
  for (const conversation of conversations) {
    const digests = rebuilt.has(conversation) ? rebuildChain(bundle, conversation) : new Map<string, string>();
    rewriteRecords(bundle, conversation, plan, digests);
  }
  writeOnce(path.join(bundle, REPORT_NAME), `${JSON.stringify(redactionReport(plan), null, 2)}\n`);
}

/** The bytes removed by the spans. */
function removedBytes(text: string, spans: readonly Span[]): number {
  return spans.reduce((sum, span) => sum + Buffer.byteLength(text.slice(span.start, span.end)), 0);
}

/** A JSON text with the given strings cut; and how many bytes went. */
function cutJson(bytes: Buffer, strings: StringCuts): { bytes: Buffer; removed: number } {
  const tokens = jsonStrings(bytes);
  const replacements = new Map<JsonString, string>();
  let removed = 0;
  for (const [index, spans] of strings) {
    const token = tokens[index];
    if (!token) throw new Error(`string ${index} is not in the record any more`);
    const text = decodeJsonString(bytes, token);
    replacements.set(token, cut(text, spans));
    removed += removedBytes(text, spans);
  }
  return { bytes: replaceJsonStrings(bytes, replacements), removed };
}

/** Writes the redacted copy of the landed file `file` to `target`: the same path, or the folder its redacted id names. */
function rewriteLanded(file: string, rows: ReadonlyMap<number, StringCuts>, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const pending = new PendingFile(target, { mode: READ_ONLY, durability: 'replaced' });
  try {
    for (const entry of readLandedFile(file)) {
      if (entry.type === 'header') {
        const strings = rows.get(0);
        const header = strings ? (JSON.parse(cutJson(Buffer.from(headerLine(entry.header)), strings).bytes.toString('utf8')) as LandedHeader) : entry.header;
        pending.write(headerLine({ ...header, derived: 'redacted' }));
        continue;
      }
      const record = entry.record;
      const strings = rows.get(entry.row);
      if (!strings) {
        for (const piece of recordLine(record.ord, record.off, record.sha, record.encoding, record.payload)) pending.write(piece);
        continue;
      }
      let payload: Buffer;
      let removed: number;
      if (record.encoding === 'raw') {
        ({ bytes: payload, removed } = cutJson(record.payload, strings));
      } else {
        // Text landed as a string, or bytes that are not UTF-8 read one character a byte.
        const characters = record.encoding === 'utf8' ? 'utf8' : 'latin1';
        const text = record.payload.toString(characters);
        const spans = strings.get(0) ?? [];
        payload = Buffer.from(cut(text, spans), characters);
        removed = removedBytes(text, spans);
      }
      for (const piece of recordLine(record.ord, record.off, digestOf(payload), record.encoding, payload, removed)) pending.write(piece);
    }
    pending.finish();
  } catch (error) {
    pending.abandon();
    throw new Error(`${file}: cannot be redacted: ${(error as Error).message}`);
  }
}

function carriesSummariesElsewhere(bundle: string, conversation: string): boolean {
  if (roundFiles(bundle, conversation).length === 0) return false;
  const session = [...readChain(bundle, conversation).nodes.values()].find((node) => node.kind === 'session');
  return summariesCarried(session?.attrs).length > 0;
}

/** Builds the conversation's chain again from the redacted evidence; gives each original round digest's replacement. */
function rebuildChain(bundle: string, conversation: string): Map<string, string> {
  const original = roundFiles(bundle, conversation).map((file) => readRound(file));
  const folder = conversationFolder(bundle, conversation);
  fs.rmSync(path.join(folder, 'rounds'), { recursive: true, force: true });
  const digests = new Map<string, string>();
  if (original.length === 0) return digests;
  const session = original[0]!.header.session;
  const index = loadSessionIndex(bundle, session, { persist: false });
  for (const round of original) {
    const { policy, through_seq: throughSeq } = round.header;
    // A round an older parser built is built again by this one: this build
    // can vouch only for its own assembly of the redacted evidence.
    const parser = PARSER_VERSION;
    const gap = /^idle_gap_ms=(\d+)$/.exec(policy);
    if (!gap) throw new Error(`conversation ${conversation}: round ${round.header.round} names a policy this build cannot read: ${policy}`);
    const structure = assemble(index, { conversation, throughSeq, idleGap: Number(gap[1]) });
    const appended = appendRound(bundle, { conversation, session, structure, throughSeq, landed: index.files, parser, policy });
    if (appended.round) digests.set(round.commit.digest, appended.round.commit.digest);
  }
  // The head pointer is state, not evidence: an export carries none.
  fs.rmSync(path.join(folder, 'conversation.state'), { force: true });
  return digests;
}

/** Writes again each branch or label record that holds a secret or names a rebuilt round. */
function rewriteRecords(bundle: string, conversation: string, plan: RedactionPlan, digests: ReadonlyMap<string, string>): void {
  const folder = conversationFolder(bundle, conversation);
  for (const relative of recordFiles(bundle, conversation)) {
    const file = path.join(folder, relative);
    const strings = plan.files.get(`_conversations/${conversation}/${relative}`)?.rows.get(0);
    const cutFrom = relative.startsWith('branches/') ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { cut_from?: { digest?: string } }).cut_from?.digest : undefined;
    const replacement = cutFrom !== undefined ? digests.get(cutFrom) : undefined;
    if (!strings && replacement === undefined) continue;
    let text = strings ? cutJson(fs.readFileSync(file), strings).bytes.toString('utf8') : fs.readFileSync(file, 'utf8');
    if (replacement !== undefined) {
      const record = JSON.parse(text) as { cut_from: { round: number; digest: string } };
      text = `${JSON.stringify({ ...record, cut_from: { ...record.cut_from, digest: replacement } }, null, 2)}\n`;
    }
    // Named <name>-<digest12>.json or <n>-<digest12>.json: the name follows the new bytes.
    const digest = crypto.createHash('sha256').update(text).digest('hex');
    const renamed = path.join(path.dirname(file), path.basename(file).replace(/-[0-9a-f]{12}\.json$/, `-${digest.slice(0, 12)}.json`));
    fs.rmSync(file, { force: true });
    writeOnce(renamed, text);
  }
}
