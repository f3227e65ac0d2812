// The page budget is kept by the talks' HTML as rendered: each talk is
// rendered once, its bytes known, and a conversation's pages are cut from
// those bytes, so that no page of several talks passes the budget and no
// page is rendered again.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { stableUuid, textBlock, toolUseBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { PAGE_BUDGET } from '../../src/site/models/page-files.ts';
import { SiteReader } from '../../src/site/generator/site-reader.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { collectOnce, expectSameFiles, filesOf, temporaryFolder } from '../helpers.ts';
import { growingTranscript } from './growing-transcript.ts';

const rendered = vi.hoisted(() => new Map<string, number>());
vi.mock('../../src/site/views/talks.ts', async (original) => {
  const actual = await original<typeof import('../../src/site/views/talks.ts')>();
  return {
    ...actual,
    talkHtml: (...given: Parameters<typeof actual.talkHtml>) => {
      rendered.set(given[0].id, (rendered.get(given[0].id) ?? 0) + 1);
      return actual.talkHtml(...given);
    },
  };
});

/** How many talks a page shows. */
function talksOn(page: string): number {
  return page.split('<section class="talk"').length - 1;
}

describe('the page budget', () => {
  it('cuts a conversation of many talks so that no page passes the budget unless it holds one talk, rendering each talk once', { timeout: 240_000 }, async () => {
    const { root, data, out, session, transcript, t, writeNewLines } = await growingTranscript('pages cut from their talks as rendered', '-home-user-escaped');
    // Output of `<` and `&` is four and five bytes a character once escaped:
    // what an estimate of plain text would take for a fraction of its page.
    // Each result shows its first 32 KB (models/parts.ts), so a talk is made
    // large by many of them.
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
    for (let index = 1; index <= 12; index++) talk(`part${index}`, index % 3 === 0 ? 3 : 1);
    // One talk larger than the budget alone: it is never cut, so its page is allowed and reported.
    talk('whole', 8);
    talk('after', 1);
    writeNewLines();
    // A conversation whose page fits, beside it: one page.
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
    expect(fs.readdirSync(path.join(out, 'site', 'c')).filter((name) => name.startsWith(small))).toEqual([`${small}.html`]);
    const pagesOf = (folder: string): { file: string; bytes: number; talks: number }[] =>
      fs
        .readdirSync(path.join(folder, 'c'))
        .filter((name) => name.startsWith(session))
        .map((name) => {
          const page = fs.readFileSync(path.join(folder, 'c', name), 'latin1');
          return { file: `c/${name}`, bytes: page.length, talks: talksOn(page) };
        });
    const pages = pagesOf(path.join(out, 'site'));
    expect(pages.reduce((sum, page) => sum + page.talks, 0)).toBe(14);
    // Several pages, and more talks than pages: they are cut by size, not one talk a page.
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.length).toBeLessThan(14);
    for (const page of pages) if (page.talks > 1) expect(page.bytes, page.file).toBeLessThanOrEqual(PAGE_BUDGET);
    // The only page past the budget is the one talk larger than it alone.
    const over = pages.filter(({ bytes }) => bytes > PAGE_BUDGET);
    expect(over.map(({ talks }) => talks)).toEqual([1]);
    expect(fs.readFileSync(path.join(out, 'site', over[0]!.file), 'utf8')).toContain('whole-0.xml');
    expect(site.overBudget).toEqual(over.map(({ file, bytes }) => ({ file, bytes })));
    // The outline on the first page names the page each prompt is on.
    const firstPage = fs.readFileSync(path.join(out, 'site', `c/${session}.html`), 'utf8');
    expect(firstPage).toContain(`on ${pages.length} pages`);
    expect(firstPage).toContain(`<a href="../${over[0]!.file}#`);
    // Every link to a talk leads to the page that holds it, and no marker of a page's number is left.
    const texts = new Map(pages.map(({ file }) => [file, fs.readFileSync(path.join(out, 'site', file), 'utf8')]));
    let links = 0;
    for (const [file, text] of texts) {
      expect(text, file).not.toContain('\u0000');
      for (const [, target, anchor] of text.matchAll(new RegExp(`href="\\.\\./(c/${session}[^"#]*)#([^"]+)"`, 'g'))) {
        expect(texts.get(target!)?.includes(`id="${anchor}"`), `${file} → ${target}#${anchor}`).toBe(true);
        links += 1;
      }
    }
    expect(links).toBeGreaterThan(14);
    // The search entries name the pages as cut.
    const search = fs.readFileSync(path.join(out, 'site', 'search', `${session}.js`), 'utf8');
    expect(search).toContain(over[0]!.file);

    // Read as a renderer reads it, each talk's HTML is made once, for its
    // size and for its page.
    const reader = new SiteReader({ bundle: path.join(out, 'bundle') });
    const files: string[] = [];
    for (const file of reader.pagesAsPlanned()) {
      files.push(file);
      expect(reader.body(file).talks.length).toBeGreaterThan(0);
    }
    reader.close();
    expect(files.filter((file) => file.startsWith(`c/${session}`)).sort()).toEqual(pages.map(({ file }) => file).sort());
    expect(rendered.size).toBe(15);
    expect([...rendered.values()].every((count) => count === 1)).toBe(true);

    // Rendered again with the sizes a render recorded beside its plan, the
    // pages are cut the same, and a talk is rendered only when a page to
    // write shows it; with other code, every talk is rendered again.
    const plans = temporaryFolder();
    const selected = { id: session, render: true, plan: path.join(plans, 'plan.json') };
    const render = async (code: string, withEarlier: boolean, wanted: (file: string) => boolean): Promise<Map<string, string>> => {
      rendered.clear();
      const earlier = withEarlier ? { earlier: { files: plans, digests: path.join(plans, 'none.jsonl'), talks: path.join(plans, 'earlier.talks.json') } } : {};
      const again = new SiteReader({ bundle: path.join(out, 'bundle'), selection: { conversations: [{ ...selected, ...earlier }], code } });
      const bodies = new Map<string, string>();
      // The talks as a page holds them: its body's placeholders with the talks put in their place.
      for (const file of again.pagesAsPlanned()) if (wanted(file)) bodies.set(file, again.placeTalks(file, Buffer.from(again.body(file).talks)).toString());
      again.close();
      return bodies;
    };
    const whole = await render('code', false, () => true);
    expect([...whole.keys()].sort()).toEqual(pages.map(({ file }) => file).sort());
    expect(rendered.size).toBe(14);
    fs.renameSync(path.join(plans, 'plan.talks.json'), path.join(plans, 'earlier.talks.json'));
    const last = pages.map(({ file }) => file).sort().at(-2)!;
    const kept = await render('code', true, (file) => file === last);
    expect(kept).toEqual(new Map([[last, whole.get(last)!]]));
    expect(rendered.size).toBe(talksOn(fs.readFileSync(path.join(out, 'site', last), 'utf8')));
    await render('other code', true, () => false);
    expect(rendered.size).toBe(14);

    // Rendered by two children at once, each its share, the site is the same bytes.
    const folder = temporaryFolder();
    await buildSite(path.join(out, 'bundle'), path.join(folder, 'site'), path.join(folder, 'cache'), { builds: 2 });
    expectSameFiles(filesOf(path.join(folder, 'site')), filesOf(path.join(out, 'site')));

    // The next export renders nothing.
    const again = await writeExport(data, out, sessions);
    expect([again.site!.built, again.rootDigest]).toEqual([0, first.rootDigest]);

    // The conversation grows: its pages are cut again from the start, and
    // those whose models did not change are kept from the earlier render,
    // as the bytes a whole render gives.
    t.prompt('Anything else?');
    t.call([textBlock('Nothing else.')]);
    writeNewLines();
    collectOnce(root, data);
    for (const each of sessions) parseSession(data, each);
    const grown = await writeExport(data, out, sessions);
    expect(grown.rootDigest).not.toBe(first.rootDigest);
    expect(grown.site!.keptFromEarlier).toBeGreaterThan(0);
    fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true });
    const grownWhole = await writeExport(data, out, sessions);
    expect([grownWhole.site!.keptFromEarlier, grownWhole.rootDigest]).toEqual([0, grown.rootDigest]);
  });
});
