import { describe, expect, it } from 'vitest';
import { redactionReport, reportText } from '../../src/redaction/report.ts';

describe('the redaction report as a person reads it', () => {
  it('shows a record id or preview that holds control characters escaped, one line a finding', () => {
    const report = redactionReport({
      rules: ['aws-key'],
      paths: false,
      findings: [{ conversation: 'c1', file: 'bundle/c1/streams/main/t.jsonl', row: 3, record: 'id\n\u001b[2J\u202e', part: 'part 1 (text)', rule: 'aws-key', preview: 'AKIA…\u009b', bytes: 20 }],
    });
    expect(reportText(report).split('\n').at(-2)).toBe('  bundle/c1/streams/main/t.jsonl row 3 record id\\u000a\\u001b[2J\\u202e, part 1 (text): aws-key AKIA…\\u009b');
  });
});
