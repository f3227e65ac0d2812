import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONVERTERS, converterFor } from '../../src/adapters/dialects.ts';
import { fork } from '../../src/branches/explicit.ts';
import { labelBranch } from '../../src/branches/labels.ts';
import { writeArchive } from '../../src/bundle/archive.ts';
import { BUNDLE } from '../../src/bundle/manifest.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { exportFiles } from '../../src/bundle/manifest.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { REPORT_NAME, type RedactionReport } from '../../src/redaction/report.ts';
import { ruleSet } from '../../src/redaction/rules.ts';
import { scanForSecrets } from '../../src/redaction/scan.ts';
import { readChain } from '../../src/session-flow/chain.ts';
import { slug } from '../../src/site/models/page-files.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { FIXTURE_BASIC_CREDENTIALS, FIXTURE_ENCODED_BLOBS, FIXTURE_ENCODED_SECRETS, FIXTURE_HOME, FIXTURE_NOT_SECRETS, FIXTURE_SECRET_KINDS, FIXTURE_SECRETS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, landedOf, sessionDataOf, temporaryFolder } from '../helpers.ts';
import { evidenceRows } from '../site/evidence-script.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const session = FIXTURE_SESSIONS.secrets;
const encoded = FIXTURE_SESSIONS.encodedSecrets;
const kinds = FIXTURE_SESSIONS.secretKinds;
const labelSecret = 'ghp_LabelFixtureFake0LabelFixtureFake0La';
const reasonSecret = 'sk-ant-api03-ReasonFixtureFakeKey0ReasonFixtureFakeKey0ReasonFixtureFakeKey0ReasonFixtureFakeKey0ReasonFixAA';
// Each line of a private key's body is key material on its own; of every
// other kind, the value and its last characters, which a rule that stops
// short of the end would leave behind.
const kindSecrets = Object.entries(FIXTURE_SECRET_KINDS).flatMap(([name, value]: [string, string]) => (name.endsWith('KeyBody') ? value.match(/.{1,64}/g)! : [value, value.slice(-20)]));
const secrets = [...Object.values(FIXTURE_SECRETS), ...Object.values(FIXTURE_ENCODED_SECRETS), ...Object.values(FIXTURE_ENCODED_BLOBS), ...kindSecrets, FIXTURE_BASIC_CREDENTIALS, labelSecret, reasonSecret, FIXTURE_HOME.user];

let source: string;
let data: string;
let out: string;
let extracted: string;
let archive: string;
let tarStream: Buffer;
let storageBefore: Map<string, string>;

/** Every file under a folder, with the SHA-256 of its bytes. */
function digests(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.set(path.relative(root, full), crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex'));
    }
  };
  walk(root);
  return found;
}

/** A text as HTML writes it, with each character HTML escapes spelled by name, by decimal or by hexadecimal number. */
function htmlEscapes(text: string): string[] {
  const named: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
  return [
    text.replace(/[&<>"']/g, (character) => named[character]!),
    text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`),
    text.replace(/[&<>"']/g, (character) => `&#x${character.charCodeAt(0).toString(16)};`),
  ];
}

/**
 * The spellings a secret's bytes can take in a file: raw, JSON-escaped, JSON-escaped twice
 * (JSON in a JSON string), URL-encoded, HTML-escaped, and base64 at each of the three alignments.
 */
function spellings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const escaped = JSON.stringify(secret).slice(1, -1);
  const forms = [secret, escaped, JSON.stringify(escaped).slice(1, -1), encodeURIComponent(secret), encodeURI(secret), ...htmlEscapes(secret), ...htmlEscapes(escaped)];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Drop the characters that also carry the bytes before or after it.
    forms.push(encoded.slice(shift === 0 ? 0 : 4, -4));
  }
  return [...new Set(forms)].filter((form) => form.length >= 6);
}

/** Each secret found in the bytes, in any of its spellings, named with where. */
function leaksIn(where: string, bytes: Buffer): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const form of spellings(secret)) if (where.includes(form) || bytes.includes(form)) found.push(`${where}: ${secret} as ${form}`);
  }
  return found;
}

/** Leaks in every file under `root`, an evidence page's rows read as its script expands them (they are held compressed). */
function leaks(root: string): string[] {
  return [...digests(root).keys()].flatMap((relative) => {
    const bytes = fs.readFileSync(path.join(root, relative));
    const rows = /^site\/e\/.*\.html$/.test(relative) ? leaksIn(`${relative}, its rows`, Buffer.from(evidenceRows(bytes.toString('utf8')).join('\n'))) : [];
    return [...leaksIn(relative, bytes), ...rows];
  });
}

beforeAll(async () => {
  source = copyOfFixtures({ forFile: true });
  data = temporaryFolder({ forFile: true });
  collectOnce(source, data);
  parseSession(data, session);
  parseSession(data, encoded);
  parseSession(data, kinds);
  const done = sessionDataOf(landedFilesOfSession(data, session)[0]!.path).rows.findLast((row) => row.parts.some((part) => part.k === 'text' && 'text' in part && part.text === 'Done.'))!;
  fork(data, { conversation: session, at: done.id!, name: 'retry', by: FIXTURE_HOME.user, reason: `retry with ${reasonSecret}`, now: new Date('2026-12-02T10:00:00Z') });
  labelBranch(data, session, 'retry', { labels: ['deploy'], summary: `deployed with ${labelSecret}`, by: FIXTURE_HOME.user, now: new Date('2026-12-02T10:01:00Z') });
  storageBefore = digests(data);
  const plan = await scanForSecrets(data, [session, encoded, kinds], { rules: ruleSet(), paths: true, converterFor });
  out = path.join(temporaryFolder({ forFile: true }), 'export');
  await writeExport(data, out, [session, encoded, kinds], { redaction: plan });
  archive = path.join(temporaryFolder({ forFile: true }), 'export.tar.zst');
  await writeArchive(out, archive);
  extracted = temporaryFolder({ forFile: true });
  const untar = spawnSync('tar', ['--zstd', '-xf', archive, '-C', extracted], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(untar.stderr);
  // The tar stream itself too: its headers hold every path.
  const unzstd = spawnSync('zstd', ['-d', '-c', archive], { maxBuffer: 1 << 30 });
  if (unzstd.status !== 0) throw new Error(unzstd.stderr.toString());
  tarStream = unzstd.stdout;
}, 120_000);

describe('a redacted export', () => {
  it('holds no secret, nor the user name, in any spelling, in the folder, the archive or its tar stream', () => {
    expect(leaks(out)).toEqual([]);
    expect(leaks(extracted)).toEqual([]);
    expect(leaksIn('the decompressed archive', tarStream)).toEqual([]);
    expect(fs.readFileSync(archive).includes(FIXTURE_SECRETS.awsAccessKey)).toBe(false);
  });

  it('verifies, shallow and deep, as a folder and as an archive', { timeout: 60_000 }, async () => {
    expect((await verifyExport(out)).problems).toEqual([]);
    expect((await verifyExport(out, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
    expect((await verifyArchive(archive)).problems).toEqual([]);
    expect((await verifyArchive(archive, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
  });

  it('renders its site, showing each redacted part with its state and the size removed', () => {
    const page = fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8');
    expect(page).toMatch(/: redacted, [0-9.]+ (?:B|KB|MB) \([0-9.]+ (?:B|KB|MB) removed\)/);
    expect(page).toContain('[redacted:');
    // The conversation of secrets in other encodings is on the site too, its placeholders shown.
    const encodedPage = fs.readFileSync(path.join(out, 'site', 'c', `${encoded}.html`), 'utf8');
    for (const rule of ['secret-field', 'github-base64', 'secret-field-base64', 'url-password', 'login-password']) expect(encodedPage).toContain(`[redacted:${rule}:`);
    // Its evidence pages show the bundle's redacted copy of each landed row, never the source's.
    const evidence = fs.readdirSync(path.join(out, 'site', 'e')).filter((name) => name.startsWith(`${session}--`)).map((name) => fs.readFileSync(path.join(out, 'site', 'e', name), 'utf8'));
    expect(evidence.length).toBeGreaterThan(0);
    expect(evidence.every((html) => html.includes('a redacted copy: secrets taken out'))).toBe(true);
    const rows = evidence.flatMap((html) => evidenceRows(html)).join('\n');
    expect(rows).toContain('[redacted:');
    expect(rows).not.toContain(FIXTURE_SECRETS.awsAccessKey);
  });

  it('names a child agent whose id is a secret by its placeholder: its folder, its landed header, its page and the links to it', () => {
    const redactedId = `[redacted:github:${FIXTURE_SECRET_KINDS.agentIdToken.length}]`;
    const streams = fs.readdirSync(path.join(out, BUNDLE, kinds, 'streams')).sort();
    expect(streams).toEqual(['main', redactedId].sort());
    const [child] = landedOf(path.join(out, BUNDLE), kinds).filter((file) => file.header.stream === redactedId);
    expect(child!.header.derived).toBe('redacted');
    // The child is still joined to the call that started it: the main page links to its own page, which exists.
    const childPage = `s/${slug(kinds)}--${slug(redactedId)}.html`;
    expect(fs.existsSync(path.join(out, 'site', childPage))).toBe(true);
    expect(fs.readFileSync(path.join(out, 'site', 'c', `${kinds}.html`), 'utf8')).toContain(`../${childPage}`);
    const report = JSON.parse(fs.readFileSync(path.join(out, BUNDLE, REPORT_NAME), 'utf8')) as RedactionReport;
    expect(report.findings.some((finding) => finding.file.startsWith(`${kinds}/streams/${redactedId}/`))).toBe(true);
  });

  it('leaves the storage zone byte for byte as it was', () => {
    // The export's own caches (the reuse record and the site's finished pages)
    // live beside the evidence, derived and outside every digest.
    const evidence = new Map([...digests(data)].filter(([relative]) => !relative.startsWith('_exports') && !relative.startsWith('_site-cache')));
    expect(evidence).toEqual(storageBefore);
    expect(fs.readFileSync(landedFilesOfSession(data, session)[0]!.path).includes(FIXTURE_SECRETS.awsAccessKey)).toBe(true);
  });

  it('marks the landed copy as a redacted derivative, each changed record with what it lost, and its .sd parts as redacted', () => {
    const bundle = path.join(out, BUNDLE);
    const [main] = landedOf(bundle, session);
    expect(main!.header.derived).toBe('redacted');
    expect(main!.header.src).toBe(`-home-[redacted:user-name:${FIXTURE_HOME.user.length}]-work-vault/${session}.jsonl`);
    const prompt = main!.records[0]!;
    expect(prompt.redacted).toBe(FIXTURE_SECRETS.awsAccessKey.length + FIXTURE_SECRETS.anthropicKey.length + FIXTURE_HOME.user.length);
    expect(prompt.sha).toBe(crypto.createHash('sha256').update(prompt.payload).digest('hex'));
    const record = JSON.parse(prompt.payload.toString('utf8')) as { cwd: string; message: { content: string } };
    expect(record.cwd).toBe(`/home/[redacted:user-name:${FIXTURE_HOME.user.length}]/work/vault`);
    expect(record.message.content).toContain(`Deploy with [redacted:aws:20] and the model key [redacted:anthropic:${FIXTURE_SECRETS.anthropicKey.length}].`);
    const { header, rows } = sessionDataOf(main!.path);
    expect(header.derived).toBe('redacted');
    const text = rows[0]!.parts[0]!;
    expect(text.state).toBe('redacted');
    expect(text.removed).toBe(FIXTURE_SECRETS.awsAccessKey.length + FIXTURE_SECRETS.anthropicKey.length);
    // bytes stays the size of the original content, as sd/1 defines it.
    const original = sessionDataOf(landedFilesOfSession(data, session)[0]!.path).rows[0]!.parts[0]!;
    expect(text.bytes).toBe(original.bytes);
  });

  it('keeps a secret with characters JSON escapes out, and the payload valid JSON', () => {
    const [main] = landedOf(path.join(out, BUNDLE), session);
    for (const entry of main!.records) expect(() => JSON.parse(entry.payload.toString('utf8'))).not.toThrow();
    const connect = main!.records.map((entry) => entry.payload.toString('utf8')).find((payload) => payload.includes('mcp__db__connect'))!;
    expect(connect).toContain(`"password":"[redacted:secret-field:${Buffer.byteLength(FIXTURE_SECRETS.fieldPassword)}]"`);
    const env = main!.records.map((entry) => entry.payload.toString('utf8')).find((payload) => payload.includes('SESSION_SECRET'))!;
    expect(env).toContain(`SESSION_SECRET=[redacted:env-secret:${Buffer.byteLength(FIXTURE_SECRETS.envSecret)}]`);
  });

  it('leaves ordinary hashes, commit ids, UUIDs and code alone', () => {
    const text = fs.readFileSync(landedOf(path.join(out, BUNDLE), session)[0]!.path, 'utf8');
    for (const survivor of Object.values(FIXTURE_NOT_SECRETS)) expect(text).toContain(JSON.stringify(survivor).slice(1, -1));
    // Beside the secrets of configuration files, their other fields.
    const configuration = fs.readFileSync(landedOf(path.join(out, BUNDLE), encoded)[0]!.path, 'utf8');
    for (const survivor of ['"max_tokens": 4096', '"owner": "config.owner"', 'username: billing', 'pool: 5', 'timeout = 30', 'user = billing']) expect(configuration).toContain(JSON.stringify(survivor).slice(1, -1));
  });

  it('builds the conversation its own chain from the redacted evidence, and names its rounds in the branch record', () => {
    const bundle = path.join(out, BUNDLE);
    const chain = readChain(bundle, session);
    const original = readChain(data, session);
    expect(chain.rounds.map((round) => [round.header.round, round.header.from_seq, round.header.through_seq])).toEqual(original.rounds.map((round) => [round.header.round, round.header.from_seq, round.header.through_seq]));
    expect(chain.rounds.at(-1)!.commit.digest).not.toBe(original.rounds.at(-1)!.commit.digest);
    const branches = fs.readdirSync(path.join(bundle, '_conversations', session, 'branches'));
    expect(branches).toHaveLength(1);
    const record = JSON.parse(fs.readFileSync(path.join(bundle, '_conversations', session, 'branches', branches[0]!), 'utf8')) as { cut_from: { digest: string }; provenance: { actor: string; reason: string } };
    expect(record.cut_from.digest).toBe(chain.rounds.at(-1)!.commit.digest);
    expect(record.provenance.actor).toBe(`[redacted:user-name:${FIXTURE_HOME.user.length}]`);
    expect(record.provenance.reason).toBe(`retry with [redacted:anthropic:${reasonSecret.length}]`);
    expect(fs.existsSync(path.join(bundle, '_conversations', session, 'conversation.state'))).toBe(false);
  });

  it('is never taken for the source by a later export into the same folder, redacted or not', { timeout: 120_000 }, async () => {
    const plan = await scanForSecrets(data, [session], { rules: ruleSet(), paths: true, converterFor });
    const again = path.join(temporaryFolder({ forFile: true }), 'export');
    await writeExport(data, again, [session], { redaction: plan, site: false });
    const redactedTwice = await writeExport(data, again, [session], { redaction: plan, site: false });
    expect(leaks(again)).toEqual([]);
    expect((await verifyExport(again)).problems).toEqual([]);
    // A plain export next: every file a redaction replaced is copied from the storage zone again.
    const plain = await writeExport(data, again, [session], { site: false });
    expect(plain.copied).toBeGreaterThan(0);
    expect(plain.rootDigest).not.toBe(redactedTwice.rootDigest);
    expect((await verifyExport(again, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
    const landed = exportFiles(again).files.filter((file) => file.startsWith(`${BUNDLE}/${session}/streams/main/`) && file.endsWith('.jsonl'));
    expect(landed.some((file) => fs.readFileSync(path.join(again, file)).includes(FIXTURE_SECRETS.awsAccessKey))).toBe(true);
  });

  it('saves the report in the bundle, covered by the manifest, with every finding placed and none given away', () => {
    const report = JSON.parse(fs.readFileSync(path.join(out, BUNDLE, REPORT_NAME), 'utf8')) as RedactionReport;
    expect(exportFiles(out).files).toContain(`${BUNDLE}/${REPORT_NAME}`);
    expect(report.schema).toBe('redaction-report/1');
    const rules = new Set(report.findings.map((finding) => finding.rule));
    for (const rule of ['aws', 'anthropic', 'github', 'jwt', 'mysql-password', 'password-option', 'curl-user', 'sshpass', 'env-secret', 'secret-field', 'privatekey', 'database-connection-string', 'bearer-token', 'slack', 'user-name']) expect(rules).toContain(rule);
    const aws = report.findings.find((finding) => finding.rule === 'aws')!;
    expect(aws).toMatchObject({ conversation: session, row: 1, part: 'part 1 (text)', preview: 'AKIA…(20 bytes)', bytes: 20 });
    expect(aws.record).toMatch(/^[0-9a-f-]{36}$/);
    expect(report.findings.some((finding) => finding.file.includes('/streams/a5ec5ec5ec5ec5ec5/'))).toBe(true);
    expect(report.findings.some((finding) => finding.file.includes('/runs/') && finding.rule === 'slack')).toBe(true);
    expect(report.findings.some((finding) => finding.file.includes('/labels/retry/') && finding.rule === 'github')).toBe(true);
    const encodedRules = new Set(report.findings.filter((finding) => finding.conversation === encoded).map((finding) => finding.rule));
    for (const rule of ['secret-field', 'aws', 'github-base64', 'secret-field-base64', 'url-password', 'login-password', 'env-secret']) expect(encodedRules).toContain(rule);
  });
});

describe('export --redact on the command line', () => {
  const sessionizer = (args: string[]) => {
    const result = spawnSync(process.execPath, [launcher, ...args], { encoding: 'utf8' });
    return { code: result.status, out: result.stdout, error: result.stderr };
  };

  it('with --archive writes a folder and an archive that hold no secret in any spelling', { timeout: 180_000 }, () => {
    const work = temporaryFolder();
    const target = path.join(work, 'export');
    const packed = path.join(work, 'export.tar.zst');
    const exported = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--archive', packed, '--conversation', session, '--conversation', encoded, '--conversation', kinds, '--redact', '--redact-paths']);
    expect(exported.code, exported.error).toBe(0);
    const unpacked = path.join(work, 'unpacked');
    fs.mkdirSync(unpacked);
    expect(spawnSync('tar', ['--zstd', '-xf', packed, '-C', unpacked]).status).toBe(0);
    const stream = spawnSync('zstd', ['-d', '-c', packed], { maxBuffer: 1 << 30 });
    expect(stream.status).toBe(0);
    expect([...leaks(target), ...leaks(unpacked), ...leaksIn('the decompressed archive', stream.stdout)]).toEqual([]);
  });

  it('with --dry-run reports each finding with its conversation, record, part and rule, and writes no export', { timeout: 60_000 }, () => {
    const target = path.join(temporaryFolder(), 'export');
    const text = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--conversation', session, '--redact', '--dry-run']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(new RegExp(`row 1 record [0-9a-f-]{36}, part 1 \\(text\\): aws AKIA…\\(20 bytes\\)`));
    expect(text.out).toContain(`conversation ${session}`);
    expect(text.out).toContain('nothing was written (--dry-run)');
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text.out).not.toContain(secret);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readdirSync(path.dirname(target))).toEqual([]);
    const json = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--conversation', session, '--redact', '--dry-run', '--json']);
    const report = JSON.parse(json.out) as RedactionReport;
    expect(report.totals.findings).toBe(report.findings.length);
    expect(report.paths).toBe(false);
    expect(report.findings.some((finding) => finding.rule === 'user-name')).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('takes a user rules file, and rejects a malformed one naming the file and line', { timeout: 60_000 }, () => {
    const rules = path.join(temporaryFolder(), 'team.rules');
    fs.writeFileSync(rules, `# our build ids\nbuild-hash /build hash is (?<secret>[0-9a-f]{64})/\n`);
    const found = sessionizer(['export', '--source', source, '--data', data, '--out', path.join(temporaryFolder(), 'export'), '--conversation', session, '--redact-rules', rules, '--dry-run', '--json']);
    expect(found.code).toBe(0);
    const report = JSON.parse(found.out) as RedactionReport;
    expect(report.findings.filter((finding) => finding.rule === 'build-hash')).toHaveLength(1);
    expect(report.rules).toContain('user rules team.rules');
    fs.writeFileSync(rules, `build-hash /build hash is (?<secret>[0-9a-f]{64})/\nbroken /(unclosed/\n`);
    const rejected = sessionizer(['export', '--source', source, '--data', data, '--out', path.join(temporaryFolder(), 'export'), '--conversation', session, '--redact-rules', rules]);
    expect(rejected.code).toBe(1);
    expect(rejected.error).toContain(`${rules}: line 2: not a valid regular expression`);
  });

  it('refuses --dry-run without --redact', { timeout: 60_000 }, () => {
    const refused = sessionizer(['export', '--data', data, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.error).toMatch(/--dry-run only applies to --redact/);
  });
});
