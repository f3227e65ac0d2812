import fs from 'node:fs';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { decodeJsonString, jsonStrings, jsonStringTexts, replaceJsonStrings } from '../../src/redaction/json-strings.ts';
import { placeholdersIn } from '../../src/session-data/placeholder.ts';
import { findSecrets, readRulesFile, readTokenRules, ruleSet, RulesFileError, type Span } from '../../src/redaction/rules.ts';
import { cut, preview } from '../../src/redaction/scan.ts';
import { FIXTURE_BASIC_CREDENTIALS, FIXTURE_ENCODED_BLOBS, FIXTURE_ENCODED_SECRETS, FIXTURE_NOT_SECRETS, FIXTURE_SECRET_KINDS, FIXTURE_SECRETS } from '../../scripts/write-fixtures.ts';
import { temporaryFolder } from '../helpers.ts';

const rules = ruleSet();

async function found(text: string): Promise<{ rule: string; secret: string }[]> {
  return (await findSecrets(text, rules)).map((span) => ({ rule: span.rule, secret: text.slice(span.start, span.end) }));
}

/** The text with every span a rule finds cut out, as an export holds it. */
async function redacted(text: string): Promise<string> {
  const spans = [...(await findSecrets(text, rules))].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start < last.end) merged[merged.length - 1] = { ...last, end: Math.max(last.end, span.end) };
    else merged.push(span);
  }
  return cut(text, merged);
}

const s = FIXTURE_SECRET_KINDS;
const keyLines = (body: string): string[] => body.match(/.{1,64}/g)!;
const pem = (label: string, body: string, headers = ''): string => `-----BEGIN ${label}-----\n${headers}${keyLines(body).join('\n')}\n-----END ${label}-----`;
const numbered = (text: string, after: string): string => text.split('\n').map((line, index) => `${String(index + 1).padStart(6)}${after}${line}`).join('\n');

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

  it.each([
    ['as the Read tool shows it, an arrow after each number', numbered(pem('RSA PRIVATE KEY', s.rsaKeyBody), '→'), s.rsaKeyBody],
    ['as the Read tool and cat -n show it, a tab after each number', numbered(pem('EC PRIVATE KEY', s.ecKeyBody), '\t'), s.ecKeyBody],
    ['added in a diff', pem('ENCRYPTED PRIVATE KEY', s.encryptedKeyBody).split('\n').map((line) => `+${line}`).join('\n'), s.encryptedKeyBody],
    ['removed in a diff', pem('OPENSSH PRIVATE KEY', s.opensshKeyBody).split('\n').map((line) => `-${line}`).join('\n'), s.opensshKeyBody],
    ['as context in a diff', pem('RSA PRIVATE KEY', s.rsaKeyBody).split('\n').map((line) => ` ${line}`).join('\n'), s.rsaKeyBody],
    ['with Proc-Type and DEK-Info headers', pem('RSA PRIVATE KEY', s.procTypeKeyBody, 'Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n'), s.procTypeKeyBody],
    ['in a quoted .env value, its line breaks written \\n', `PRIVATE_KEY="${pem('PRIVATE KEY', s.envKeyBody).replace(/\n/g, '\\n')}\\n"`, s.envKeyBody],
    ['in a .env value inside JSON inside a string', JSON.stringify(JSON.stringify({ env: `PRIVATE_KEY="${pem('PRIVATE KEY', s.envKeyBody).replace(/\n/g, '\\n')}"` })), s.envKeyBody],
    ['cut short, with no END line', `$ head -4 key.pem\n-----BEGIN RSA PRIVATE KEY-----\n${keyLines(s.rsaKeyBody).slice(0, 3).join('\n')}\n$ echo done`, keyLines(s.rsaKeyBody).slice(0, 3).join('')],
  ])('takes out every line of a private key %s', async (_, text, body) => {
    const left = await redacted(text);
    expect(left).toContain('[redacted:');
    for (const line of keyLines(body)) expect(left).not.toContain(line.slice(0, 24));
  });

  it.each([
    ['basic-credentials', `{"headers": {"Authorization": "Basic ${FIXTURE_BASIC_CREDENTIALS}"}}`, FIXTURE_BASIC_CREDENTIALS],
    ['authorization', `curl -H "Authorization: Token ${s.authorizationToken}" https://api.example.invalid`, s.authorizationToken],
    ['secret-field', `curl -H "X-API-Key: ${s.xApiKey}" -H 'Accept: */*' https://api.example.invalid`, s.xApiKey],
    ['secret-field', `Location: https://app.example.invalid/callback#access_token=${s.fragmentToken}&token_type=bearer`, s.fragmentToken],
    ['env-secret', `     3→SECRET_KEY_BASE=${s.secretKeyBase}`, s.secretKeyBase],
    ['secret-field', `production:\n  secret_key_base: ${s.yamlSecretKeyBase}\n`, s.yamlSecretKeyBase],
    ['azure-storage-key', `"Storage": "DefaultEndpointsProtocol=https;AccountName=fixturestore;AccountKey=${s.azureAccountKey};EndpointSuffix=core.windows.net"`, s.azureAccountKey],
    ['azure-client-secret', `the new credential is ${s.azureClientSecret} until next year`, s.azureClientSecret],
    ['slack', `Socket mode uses ${s.slackAppToken}.`, s.slackAppToken],
    ['jwt', `session=${s.spacedJwt};`, s.spacedJwt],
    ['jwt', `token: ${s.paddedJwt}`, s.paddedJwt],
    ['github', `agent-${s.agentIdToken}.jsonl`, s.agentIdToken],
  ])('finds %s in %s', async (rule, text, secret) => {
    expect(await found(text)).toContainEqual({ rule, secret });
  });

  it('finds each provider token whole, alone on a line, in a URL path and after a dotted prefix', async () => {
    const providers = ['stripe', 'gitlab', 'huggingFace', 'google', 'digitalOcean', 'docker', 'pypi', 'npm', 'openai', 'anthropicAdmin', 'twilio', 'sendgrid', 'mailchimp', 'shopify', 'heroku', 'dropbox', 'atlassian', 'databricks', 'doppler', 'linear', 'postman', 'pulumi', 'grafana', 'sentry', 'newRelic', 'age', 'alibaba', 'tailscale', 'planetscale', 'brevo', 'rubygems', 'vault', 'supabase', 'xai', 'perplexity', 'replicate', 'langsmith', 'cloudflareOrigin', 'square'] as const;
    for (const name of providers) {
      for (const text of [`- ${name}: ${s[name]}`, `GET https://api.example.invalid/v1/${s[name]}/items`]) {
        const left = await redacted(text);
        expect(left, `${name} in ${text}`).not.toContain(s[name].slice(-12));
        expect(left, `${name} in ${text}`).toContain('[redacted:');
      }
    }
  });

  it('does not take a token out of a longer word or a base64 blob', async () => {
    const word = `x${s.stripe}`;
    expect(await found(`id ${word} end`)).toEqual([]);
    expect(await found(`blob ${'QUJD'.repeat(10)}+${s.twilio}+${'QUJD'.repeat(10)} end`)).toEqual([]);
  });

  it("finds AWS access key ids in a text with or without the word account, and account ids, as secretlint's AWS rule does", async () => {
    const key = FIXTURE_SECRETS.awsAccessKey;
    expect(await found(`id ${key} here`)).toEqual([{ rule: 'aws', secret: key }]);
    expect(await found(`account of ${key}`)).toContainEqual({ rule: 'aws', secret: key });
    expect(await found('AWS_ACCOUNT_ID = "1234-5678-9012"')).toEqual([{ rule: 'aws', secret: 'AWS_ACCOUNT_ID = "1234-5678-9012' }]);
    expect(await found('"AwsAccountId": 123456789012')).toEqual([{ rule: 'aws', secret: '"AwsAccountId": 123456789012' }]);
    // The example of AWS's documentation, which secretlint lets pass.
    expect(await found('x AKIAIOSFODNN7EXAMPLE y')).toEqual([]);
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
      // Private keys as documentation writes them, headers and keys that name a secret held elsewhere, and code.
      '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n-----BEGIN RSA PRIVATE KEY-----\n<your key here>\n-----END RSA PRIVATE KEY-----',
      'curl -H "Authorization: Token ${GITHUB_TOKEN}" -H "X-API-Key: $API_KEY" -H "X-Request-Id: 5d2f0c1e-0b7a-4e8e-9d51-3f6a2c1b0e9d"',
      'const headers = { "Authorization": "Basic " + btoa(user) };\nconst client = { token: accessToken, apiKey: settings.apiKey };',
      'https://app.example.invalid/callback#access_token=<token>&state=xyz and SECRET_KEY_BASE=$(bin/rails secret)',
      'sk_live_ is the prefix of a live Stripe key; AIza starts a Google key; glpat- a GitLab token.',
    ].join('\n');
    expect(await found(ordinary)).toEqual([]);
  });
});

describe("secretlint's profiler", () => {
  // It records the start and end of every rule in every call, and looks each
  // end up among every record it keeps: kept, they make a scan of many texts
  // cost the square of its calls.
  it('keeps no records of earlier calls, however many there were', async () => {
    const { secretLintProfiler } = await import('@secretlint/profiler');
    // Observers hear of marks a turn of the event loop after they are made.
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    let marksOfOneCall = 0;
    const observer = new PerformanceObserver((list) => {
      marksOfOneCall += list.getEntriesByType('mark').length;
    });
    observer.observe({ entryTypes: ['mark'] });
    await findSecrets('one text', rules);
    await turn();
    observer.disconnect();
    expect(marksOfOneCall).toBeGreaterThan(0);
    for (let call = 0; call < 20; call++) await findSecrets(`text ${call}`, rules);
    await turn();
    expect((await secretLintProfiler.getEntries()).length).toBeLessThanOrEqual(marksOfOneCall);
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

  it.each([
    ['flagged /abc[0-9]{20}/i', 'a token rule takes no flags'],
    ['grouped /(abc)[0-9]{20}/', 'a token rule has no capturing group; write (?:…)'],
  ])('rejects the token rule %s naming the file and line', (line, message) => {
    const file = path.join(temporaryFolder(), 'tokens.rules');
    fs.writeFileSync(file, `fine /abc[0-9]{20}/\n${line}\n`);
    expect(() => readTokenRules(file)).toThrow(`${file}: line 2: ${message}`);
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

  it('reads the same strings from the decoded text as from each token, whatever bytes and escapes the payload holds', () => {
    const payloads = [
      Buffer.from(`{"b":1,  "a":{"password":${JSON.stringify('p"a\\ss\nw0rd')},"note":"caf\\u00e9 \\/ ok"},"n":1.50}`),
      Buffer.from(JSON.stringify({ 'ключ': 'значение 🔑', tab: 'a\tb', empty: '', list: ['x\\', '\\"', 'ü'] }, null, 1)),
      Buffer.from('{"x" :\t"y", "z"\n: ["q", "r\\\\"]}'),
      // Bytes that are not UTF-8, inside a string and right before its closing quote.
      Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xff, 0xc3]), Buffer.from('","b\\"":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
    ];
    for (const payload of payloads) {
      const tokens = jsonStrings(payload);
      expect(jsonStringTexts(payload)).toEqual(tokens.map((token) => ({ text: decodeJsonString(payload, token), key: token.key })));
    }
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
