// The redaction report: what was found, where, by which rule, with a preview
// that does not give the secret away. `export --redact --dry-run` prints it;
// `export --redact` saves the same report in the bundle, where the manifest
// covers it.
//
// JSON form (stable; `--json` prints it, and it is the saved file):
//   {"schema":"redaction-report/1","rules":[…],"paths":false,
//    "totals":{"findings":N,"bytes":N,"records":N,"files":N,"conversations":N},
//    "findings":[{"conversation","file","row","record"?,"part","rule","preview","bytes"}, …]}
// Findings are in file order, then row, then position.

import { printable } from '../files/printable.ts';
import { MEDIA_LEFT_OUT } from '../session-data/placeholder.ts';
import type { RedactionPlan } from './scan.ts';
import type { Finding } from './scan.ts';

export const REPORT_NAME = 'redaction-report.json';
export const REPORT_SCHEMA = 'redaction-report/1';

export interface RedactionReport {
  readonly schema: typeof REPORT_SCHEMA;
  readonly rules: string[];
  readonly paths: boolean;
  readonly totals: { readonly findings: number; readonly bytes: number; readonly records: number; readonly files: number; readonly conversations: number };
  readonly findings: Finding[];
}

export function redactionReport(plan: Pick<RedactionPlan, 'rules' | 'paths' | 'findings'>): RedactionReport {
  const findings = plan.findings;
  return {
    schema: REPORT_SCHEMA,
    rules: plan.rules,
    paths: plan.paths,
    totals: {
      findings: findings.length,
      bytes: findings.reduce((sum, finding) => sum + finding.bytes, 0),
      records: new Set(findings.map((finding) => `${finding.file}#${finding.row}`)).size,
      files: new Set(findings.map((finding) => finding.file)).size,
      conversations: new Set(findings.map((finding) => finding.conversation)).size,
    },
    findings,
  };
}

/** How many findings of a report are images and documents left out whole, rather than secrets. */
export function mediaLeftOut(report: Pick<RedactionReport, 'findings'>): number {
  const rules: readonly string[] = Object.values(MEDIA_LEFT_OUT);
  return report.findings.filter((finding) => rules.includes(finding.rule)).length;
}

/** What was found, in words: `3 secrets (120 bytes)`, or with images left out `5 findings (900 bytes): 3 secrets and 2 images or documents left out`. */
export function findingsText(totals: RedactionReport['totals'], media: number): string {
  if (media === 0) return `${totals.findings} secrets (${totals.bytes} bytes) found`;
  return `${totals.findings} findings (${totals.bytes} bytes): ${totals.findings - media} secrets and ${media} images or documents left out`;
}

/** The report as a person reads it: one line a finding, grouped by conversation, each line safe to print on a terminal (files/printable.ts). */
export function reportText(report: RedactionReport): string {
  const media = mediaLeftOut(report);
  const found = media === 0 ? `${report.totals.findings} secrets (${report.totals.bytes} bytes)` : findingsText(report.totals, media);
  const lines = [`redaction: ${found} in ${report.totals.records} records of ${report.totals.files} files, ${report.totals.conversations} conversations${report.paths ? '; home folders and user names masked' : ''}`, `rules: ${report.rules.join('; ')}`];
  let conversation: string | undefined;
  for (const finding of report.findings) {
    if (finding.conversation !== conversation) {
      conversation = finding.conversation;
      lines.push(`conversation ${conversation}`);
    }
    const where = finding.row === 0 ? finding.file : `${finding.file} row ${finding.row}${finding.record !== undefined ? ` record ${finding.record}` : ''}`;
    lines.push(`  ${where}, ${finding.part}: ${finding.rule} ${finding.preview}`);
  }
  return `${lines.map(printable).join('\n')}\n`;
}
