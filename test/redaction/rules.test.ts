import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cut } from '../../src/redaction/apply.ts';
import { decodeJsonString, jsonStrings, replaceJsonStrings } from '../../src/redaction/json-strings.ts';
import { placeholdersIn } from '../../src/session-data/placeholder.ts';
import { findSecrets, readRulesFile, ruleSet, RulesFileError } from '../../src/redaction/rules.ts';
import { preview } from '../../src/redaction/scan.ts';
import { FIXTURE_ENCODED_BLOBS, FIXTURE_ENCODED_SECRETS, FIXTURE_NOT_SECRETS, FIXTURE_SECRETS } from '../../scripts/write-fixtures.ts';
import { temporaryFolder } from '../helpers.ts';

const rules = ruleSet();

async function found(text: string): Promise<{ rule: string; secret: string }[]> {
  return (await findSecrets(text, rules)).map((span) => ({ rule: span.rule, secret: text.slice(span.start, span.end) }));
}

describe('the rule set', () => {
  it.each([
    ['aws', `key ${FIXTURE_SECRETS.awsAccessKey} here`, FIXTURE_SECRETS.awsAccessKey],
    ['anthropic', `ANTHROPIC=${FIXTURE_SECRETS.anthropicKey}`, FIXTURE_SECRETS.anthropicKey],
    ['github', `token ${FIXTURE_SECRETS.githubToken}`, FIXTURE_SECRETS.githubToken],
    ['jwt', `cookie=${FIXTURE_SECRETS.jwt};`, FIXTURE_SECRETS.jwt],
    ['mysql-password', `mysql -h db -u root -p${FIXTURE_SECRETS.mysqlPassword} app`, FIXTURE_SECRETS.mysqlPassword],
    ['password-option', `pg_dump --password ${FIXTURE_SECRETS.optionPassword} app`, FIXTURE_SECRETS.optionPassword],
    ['curl-user', `curl -s -u ada:${FIXTURE_SECRETS.curlPassword} https://example.invalid`, FIXTURE_SECRETS.curlPassword],
    ['sshpass', `sshpass -p '${FIXTURE_SECRETS.sshpassPassword}' ssh host`, FIXTURE_SECRETS.sshpassPassword],
    ['env-secret', `export STRIPE_SECRET="${FIXTURE_SECRETS.envApiKey}"`, FIXTURE_SECRETS.envApiKey],
    ['bearer-token', `-H "Authorization: Bearer ${FIXTURE_SECRETS.bearer}"`, FIXTURE_SECRETS.bearer],
    ['slack', `SLACK=${FIXTURE_SECRETS.slackToken}`, FIXTURE_SECRETS.slackToken],
    ['url-password', `git clone https://ada:${FIXTURE_ENCODED_SECRETS.urlPassword}@git.example.invalid/x.git`, FIXTURE_ENCODED_SECRETS.urlPassword],
    ['url-password', `REDIS_URL=redis://:${FIXTURE_ENCODED_SECRETS.urlPassword}@cache.example.invalid:6379`, FIXTURE_ENCODED_SECRETS.urlPassword],
    ['env-secret', `PGPASSWORD=${FIXTURE_ENCODED_SECRETS.commandPassword} psql -h db`, FIXTURE_ENCODED_SECRETS.commandPassword],
    ['login-password', `docker login -u ada -p ${FIXTURE_ENCODED_SECRETS.loginPassword} registry`, FIXTURE_ENCODED_SECRETS.loginPassword],
    ['secret-field', `curl "https://api.example.invalid/items?access_token=${FIXTURE_ENCODED_SECRETS.queryToken}&limit=5"`, FIXTURE_ENCODED_SECRETS.queryToken],
    ['secret-field', `export billing_api_key=${FIXTURE_ENCODED_SECRETS.exportApiKey}`, FIXTURE_ENCODED_SECRETS.exportApiKey],
  ])('finds %s', async (rule, text, secret) => {
    expect(await found(text)).toContainEqual({ rule, secret });
  });

  it('finds a private key and a database password, whole', async () => {
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${FIXTURE_SECRETS.privateKeyBody}\n-----END OPENSSH PRIVATE KEY-----`;
    expect((await found(`the key:\n${key}\n`)).map((entry) => entry.rule)).toContain('privatekey');
    const url = `postgres://app:${FIXTURE_SECRETS.postgresPassword}@db.example.invalid:5432/app`;
    expect((await found(`DATABASE=${url}`)).some((entry) => entry.secret.includes(FIXTURE_SECRETS.postgresPassword))).toBe(true);
  });

  it.each([
    ['JSON text', `{\n  "service": "billing",\n  "client_secret": "${FIXTURE_ENCODED_SECRETS.jsonClientSecret}"\n}`, FIXTURE_ENCODED_SECRETS.jsonClientSecret],
    ['JSON text inside a JSON string', JSON.stringify({ body: JSON.stringify({ api_key: FIXTURE_ENCODED_SECRETS.jsonApiKey }) }), FIXTURE_ENCODED_SECRETS.jsonApiKey],
    ['JSON text two strings deep', JSON.stringify(JSON.stringify({ body: JSON.stringify({ token: FIXTURE_ENCODED_SECRETS.jsonToken }) })), FIXTURE_ENCODED_SECRETS.jsonToken],
    ['a Python dictionary printed', `{'user': 'billing', 'secret': '${FIXTURE_ENCODED_SECRETS.jsonSecret}'}`, FIXTURE_ENCODED_SECRETS.jsonSecret],
    ['a YAML file read', `     1→production:\n     2→  password: ${FIXTURE_ENCODED_SECRETS.yamlPassword}\n     3→  pool: 5`, FIXTURE_ENCODED_SECRETS.yamlPassword],
    ['a YAML list with a quoted value', `users:\n  - db_password: '${FIXTURE_ENCODED_SECRETS.yamlPassword}'  # rotated`, FIXTURE_ENCODED_SECRETS.yamlPassword],
    ['an INI file', `[auth]\npassword = ${FIXTURE_ENCODED_SECRETS.iniPassword}\ntimeout = 30`, FIXTURE_ENCODED_SECRETS.iniPassword],
    ['a properties file in a diff', `+spring.datasource.password=${FIXTURE_ENCODED_SECRETS.iniPassword}`, FIXTURE_ENCODED_SECRETS.iniPassword],
  ])('finds a secret-named field written as %s', async (_, text, secret) => {
    expect(await found(text)).toContainEqual({ rule: 'secret-field', secret });
  });

  it('finds a secret inside a base64 blob, once or twice encoded, and takes the whole blob', async () => {
    const once = FIXTURE_ENCODED_BLOBS.dockerAuth;
    expect(await found(`{"auth": "${once}"}`)).toContainEqual({ rule: 'github-base64', secret: once });
    expect(await found(`data:\n  config.yaml: ${FIXTURE_ENCODED_BLOBS.secretManifest}\n`)).toContainEqual({ rule: 'secret-field-base64', secret: FIXTURE_ENCODED_BLOBS.secretManifest });
    const twice = Buffer.from(`AUTH=${once}`).toString('base64url');
    expect(await found(`token ${twice}.`)).toContainEqual({ rule: 'github-base64-base64', secret: twice });
  });

  it('leaves ordinary code, SHA-256 hashes, commit ids, UUIDs and references to secrets alone', async () => {
    const ordinary = [
      ...Object.values(FIXTURE_NOT_SECRETS),
      'git log --format=%H -1  # 4b825dc642cb6eb9a060e54bf8d69288fbee4904',
      'const password = await prompt("Password: "); if (!password) throw new Error("no password");',
      'API_KEY=${API_KEY:-} TOKEN=$(cat ~/.token) npm test',
      'MAX_TOKEN=4096 SECRET_KEY=process.env.SECRET_KEY',
      'docker login --password-stdin < token.txt',
      'Bearer tokens are sent in the Authorization header.',
      'mysql -u root -p app',
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 integrity sha512-Q2FsbCBtZSBJc2htYWVs',
      'UUID 550e8400-e29b-41d4-a716-446655440000 and request_id req_011CUk9sSsA3ymdV7mvp1Anm',
      // Fields named for secrets, in code, types, masks, references and documentation.
      'interface Login {\n  password: string;\n  token?: string | null;\n}',
      '  token: getToken(user),\n  apiKey: config.apiKey\n  secret: process.env.APP_SECRET',
      '{"accessToken": "sk-ant-oat01-...", "refreshToken": "eyJhbGciOiJIUzI1NiIs…", "password": "${DB_PASSWORD}"}',
      '     3→    - secretKey: database-url\n     4→max_tokens: 4096\n     5→token_count = 12\n     6→password: ********\n     7→password = None\n     8→secret: <your-secret>',
      'auth_token = self.session.token\nself.password = password',
      'networking.proxy.default = "http://user:password@proxy:port/"; http://localhost:3000/@scope/pkg',
      'https://example.invalid/search?q=token&page_token=&sort=asc',
      // Base64 that is text without a secret, and runs of its alphabet that are no base64.
      `echo ${Buffer.from('hello world, this is no secret at all').toString('base64')} | base64 -d`,
      '/home/user/project/src/components/Button.tsx and src/redaction/json-strings.ts',
    ].join('\n');
    expect(await found(ordinary)).toEqual([]);
  });
});

describe('a rules file', () => {
  it('adds its rules, with a secret group or the whole match', async () => {
    const file = path.join(temporaryFolder(), 'team.rules');
    fs.writeFileSync(file, '# codenames\n\ncodename /Project (?<secret>Nightjar|Kestrel)/i\nticket /INT-[0-9]{5}/\n');
    const set = ruleSet(file);
    const spans = (await findSecrets('see project kestrel and INT-12345', set)).map((span) => span.rule).sort();
    expect(spans).toEqual(['codename', 'ticket']);
    expect(set.sources).toContain('user rules team.rules');
  });

  it.each([
    ['no-expression', 'a rule with no expression', 'expected "name /regular expression/flags"'],
    ['Upper /x/', 'an upper-case name', 'the rule name "Upper" must be lower-case letters, digits and dashes'],
    ['bad-flags /x/g', 'a flag it does not take', 'flags may only be i, m, s and u'],
    ['broken /(x/', 'an expression that does not compile', 'not a valid regular expression'],
    ['empty /x*/', 'an expression that matches empty text', 'the expression matches empty text'],
  ])('rejects %s (%s) naming the file and line', (line, _what, message) => {
    const file = path.join(temporaryFolder(), 'bad.rules');
    fs.writeFileSync(file, `# fine\nfine /abc/\n${line}\n`);
    expect(() => readRulesFile(file)).toThrow(RulesFileError);
    expect(() => readRulesFile(file)).toThrow(`${file}: line 3: ${message}`);
  });

  it('rejects a file that cannot be read, naming it', () => {
    const file = path.join(temporaryFolder(), 'missing.rules');
    expect(() => ruleSet(file)).toThrow(`${file}: cannot be read (ENOENT)`);
  });
});

describe('replacing strings inside a JSON payload', () => {
  it('replaces a secret within its decoded string and keeps every other byte and valid JSON', () => {
    const secret = 'p"a\\ss\nw0rd';
    const payload = Buffer.from(`{"b":1,  "a":{"password":${JSON.stringify(secret)},"note":"caf\\u00e9 \\/ ok"},"n":1.50}`);
    const tokens = jsonStrings(payload);
    expect(tokens.map((token) => [decodeJsonString(payload, token), token.key])).toEqual([
      ['b', true],
      ['a', true],
      ['password', true],
      [secret, false],
      ['note', true],
      ['café / ok', false],
      ['n', true],
    ]);
    const text = decodeJsonString(payload, tokens[3]!);
    const replaced = replaceJsonStrings(payload, new Map([[tokens[3]!, cut(text, [{ start: 0, end: text.length, rule: 'secret-field' }])]]));
    expect(replaced.toString()).toBe(`{"b":1,  "a":{"password":"[redacted:secret-field:${Buffer.byteLength(secret)}]","note":"caf\\u00e9 \\/ ok"},"n":1.50}`);
    expect(() => JSON.parse(replaced.toString())).not.toThrow();
    expect(replaced.includes(JSON.stringify(secret).slice(1, -1))).toBe(false);
  });

  it('says the size of each removed piece in its placeholder, and previews a secret without giving it away', () => {
    const text = cut('user é: hunter2 and sk-secret', [
      { start: 8, end: 15, rule: 'password-option' },
      { start: 20, end: 29, rule: 'env-secret' },
    ]);
    expect(text).toBe('user é: [redacted:password-option:7] and [redacted:env-secret:9]');
    expect(placeholdersIn(text)).toEqual({ count: 2, removed: 16, length: 51 });
    expect(preview('hunter2')).toBe('h…(7 bytes)');
    expect(preview(FIXTURE_SECRETS.awsAccessKey)).toBe('AKIA…(20 bytes)');
  });
});
