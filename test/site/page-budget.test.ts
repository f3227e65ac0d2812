// The page budget is kept by what was rendered, not only by the estimate
// that plans the pages: a conversation whose talks render far larger than
// estimated is planned again with its estimate scaled, and rendered again.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stableUuid, textBlock, toolUseBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { PAGE_BUDGET } from '../../src/site/data/page-files.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { collectOnce, expectSameFiles, filesOf, temporaryFolder } from '../helpers.ts';
import { growingTranscript } from './growing-transcript.ts';

describe('the page budget', () => {
  it('splits again a conversation whose pages rendered past the budget, until each fits or holds one talk, and keeps it from the cache the next time', { timeout: 240_000 }, async () => {
    const { root, data, out, session, transcript, t, writeNewLines } = await growingTranscript('pages that render larger than estimated', '-home-user-escaped');
    // Output of `<` and `&` is estimated as plain text, yet each of its
    // characters is four or five once escaped: pages planned by the estimate
    // alone are several times the budget. Each result shows its first 32 KB
    // (data/parts.ts), so a talk is made large by many of them.
    const talk = (label: string, results: number): void => {
      t.prompt(`Show the markup of ${label}.`);
      for (let index = 0; index < results; index++) {
        const id = `toolu_${label}_${index}`;
        const [call] = t.call([toolUseBlock(id, 'Bash', { command: `cat ${label}-${index}.xml` })]);
        const output = '<&'.repeat(16 * 1024);
        t.result(id, call!, output, { toolUseResult: { stdout: output, stderr: '', interrupted: false } });
      }
      t.call([textBlock(`That is all of ${label}.`)]);
    };
    for (let index = 1; index <= 6; index++) talk(`part${index}`, 4);
    // One talk larger than the budget alone, rendered: it is never cut, so its page is allowed and reported.
    talk('whole', 8);
    writeNewLines();
    // A conversation whose page fits, beside it: it is rendered once.
    const small = stableUuid('a page within the budget', 1);
    const other = new Transcript({ session: small });
    other.prompt('Say done.');
    other.call([textBlock('Done.')]);
    fs.writeFileSync(path.join(path.dirname(transcript), `${small}.jsonl`), other.lines.map((line) => `${line}\n`).join(''));
    const sessions = [session, small];
    collectOnce(root, data);
    for (const each of sessions) parseSession(data, each);

    const first = await writeExport(data, out, sessions);
    const site = first.site!;
    expect(site.splitAgain).toHaveLength(1);
    const [split] = site.splitAgain;
    expect(split!.conversation).toBe(session);
    // As the estimate planned it, the site had a page of several talks over the budget.
    expect(split!.largestBefore.bytes).toBeGreaterThan(PAGE_BUDGET);
    expect(split!.scale).toBeGreaterThan(2);
    const pagesOf = (site: string): string[] => fs.readdirSync(path.join(site, 'c')).filter((name) => name.startsWith(session));
    expect(fs.readdirSync(path.join(out, 'site', 'c')).filter((name) => name.startsWith(small))).toEqual([`${small}.html`]);
    const pages = pagesOf(path.join(out, 'site')).map((name) => ({ file: `c/${name}`, bytes: fs.statSync(path.join(out, 'site', 'c', name)).size }));
    // A page for each talk.
    expect(pages).toHaveLength(7);
    const over = pages.filter(({ bytes }) => bytes > PAGE_BUDGET);
    expect(site.overBudget).toEqual(over);
    // The only page past the budget is the one talk larger than it alone, the last.
    expect(over.map(({ file }) => file)).toEqual([`c/${session}-${pages.length}.html`]);
    expect(fs.readFileSync(path.join(out, 'site', over[0]!.file), 'utf8')).toContain('whole-0.xml');
    // The search entries name the pages of the plan the site has.
    const search = fs.readFileSync(path.join(out, 'site', 'search', `${session}.js`), 'utf8');
    expect(search).toContain(`c/${session}-${pages.length}.html`);

    // Rendered by two children at once, each its share, the site is the same bytes.
    const folder = temporaryFolder();
    const shared = await buildSite(path.join(out, 'bundle'), path.join(folder, 'site'), path.join(folder, 'cache'), { builds: 2 });
    expect(shared.splitAgain.map(({ conversation }) => conversation)).toEqual([session]);
    expectSameFiles(filesOf(path.join(folder, 'site')), filesOf(path.join(out, 'site')));

    // The pages kept are those split again: the next export renders nothing and measures nothing.
    const again = await writeExport(data, out, sessions);
    expect([again.site!.built, again.site!.splitAgain, again.rootDigest]).toEqual([0, [], first.rootDigest]);
    expect(again.site!.overBudget).toEqual(over);

    // Rendered whole, with nothing kept, the site is the same bytes.
    fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true });
    const whole = await writeExport(data, out, sessions);
    expect([whole.site!.splitAgain.length, whole.rootDigest]).toEqual([1, first.rootDigest]);

    // The conversation grows: planned from the plain estimate, it is split
    // again, and the pages of its earlier render whose models did not change
    // are kept from it, as the bytes a whole render gives.
    t.prompt('Anything else?');
    t.call([textBlock('Nothing else.')]);
    writeNewLines();
    collectOnce(root, data);
    for (const each of sessions) parseSession(data, each);
    const grown = await writeExport(data, out, sessions);
    expect(grown.rootDigest).not.toBe(first.rootDigest);
    expect(grown.site!.splitAgain.map(({ conversation }) => conversation)).toEqual([session]);
    expect(grown.site!.keptFromEarlier).toBeGreaterThan(0);
    expect(pagesOf(path.join(out, 'site'))).toHaveLength(8);
    expect(grown.site!.overBudget.map(({ file }) => file)).toEqual(over.map(({ file }) => file));
    fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true });
    const grownWhole = await writeExport(data, out, sessions);
    expect([grownWhole.site!.keptFromEarlier, grownWhole.rootDigest]).toEqual([0, grown.rootDigest]);
  });
});
