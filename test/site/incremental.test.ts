// A second export renders only what changed: a conversation's finished pages
// are kept by a key over its bundle files and the site's code, and a site
// made partly from kept pages is the same bytes as one rendered whole.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { textBlock, toolUseBlock } from '../../scripts/claude-code-records.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { collectOnce, completeLines, copyOfFixtures, expectSameFiles, filesOf, temporaryFolder } from '../helpers.ts';
import { growingTranscript } from './growing-transcript.ts';

describe('an incremental site', () => {
  it('is the same bytes whatever order the export names its conversations in, and those the bundle renders whole', { timeout: 120_000 }, async () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction].sort();
    for (const session of sessions) parseSession(data, session);
    const inOrder = await writeExport(data, path.join(temporaryFolder(), 'export'), sessions);
    const reversed = await writeExport(data, path.join(temporaryFolder(), 'export'), [...sessions].reverse());
    expect(reversed.rootDigest).toBe(inOrder.rootDigest);
    // Rendered whole from the bundle alone, with no cache: what verify --deep renders.
    const whole = path.join(temporaryFolder(), 'site');
    await buildSite(path.join(reversed.out, 'bundle'), whole, path.join(temporaryFolder(), 'cache'));
    expectSameFiles(filesOf(path.join(reversed.out, 'site')), filesOf(whole));
  });

  it('renders nothing when nothing changed, only the changed conversation when one did, and gives the bytes a whole render gives', { timeout: 120_000 }, async () => {
    const root = copyOfFixtures({ forFile: true });
    const data = temporaryFolder({ forFile: true });
    collectOnce(root, data);
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult, FIXTURE_SESSIONS.nestedAgents];
    for (const session of sessions) parseSession(data, session);
    const out = path.join(temporaryFolder({ forFile: true }), 'export');

    // The Astro build's process reports its peak memory for the step timings.
    const childMemory: number[] = [];
    const first = await writeExport(data, out, sessions, { observer: { step() {}, advance() {}, childMemory: (bytes) => void childMemory.push(bytes) } });
    expect(first.site!.built).toBe(first.site!.pages);
    expect(childMemory).toHaveLength(1);
    expect(childMemory[0]).toBeGreaterThan(50 * 1024 * 1024);
    const again = await writeExport(data, out, sessions);
    expect([again.site!.built, again.site!.pages, again.rootDigest]).toEqual([0, first.site!.pages, first.rootDigest]);

    const searchScriptInode = (session: string): number => fs.statSync(path.join(out, 'site', 'search', `${session}.js`)).ino;
    const inodesBefore = new Map(sessions.map((session) => [session, searchScriptInode(session)]));
    const evidenceInodes = (session: string): number[] => fs.readdirSync(path.join(out, 'site', 'e')).filter((name) => name.startsWith(`${session}--`)).map((name) => fs.statSync(path.join(out, 'site', 'e', name)).ino);
    const evidenceBefore = new Map(sessions.map((session) => [session, evidenceInodes(session)]));

    // One conversation grows by a line: its pages, the index and the search page are rendered again.
    const transcript = path.join(root, '-home-user-fixtures-bare-string-result', `${FIXTURE_SESSIONS.bareStringResult}.jsonl`);
    fs.appendFileSync(transcript, `${completeLines(transcript).at(-1)!.toString('utf8')}\n`);
    collectOnce(root, data);
    for (const session of sessions) parseSession(data, session);
    const changed = await writeExport(data, out, sessions);
    const pagesOf = (session: string) => ['c', 'e'].flatMap((folder) => fs.readdirSync(path.join(out, 'site', folder))).filter((name) => name.startsWith(session)).length + fs.readdirSync(path.join(out, 'site')).filter((name) => name.endsWith('.html')).length;
    // Those of its pages that are the bytes of their earlier render are kept from it rather than rendered (models/view-digests.ts).
    expect(changed.site!.built + changed.site!.keptFromEarlier).toBe(pagesOf(FIXTURE_SESSIONS.bareStringResult));
    expect(changed.rootDigest).not.toBe(first.rootDigest);
    // Each conversation's search entries are a script of its own, which the
    // search page lists; the unchanged ones are kept with their pages.
    const searchPage = fs.readFileSync(path.join(out, 'site', 'search.html'), 'utf8');
    for (const session of sessions) {
      expect(searchPage).toContain(`data-script="search/${session}.js"`);
      expect(searchScriptInode(session) === inodesBefore.get(session), session).toBe(session !== FIXTURE_SESSIONS.bareStringResult);
      // So are the evidence pages of the unchanged ones: kept with their pages, not written again.
      if (session !== FIXTURE_SESSIONS.bareStringResult) expect(evidenceInodes(session), session).toEqual(evidenceBefore.get(session));
      expect(evidenceInodes(session).length, session).toBeGreaterThan(0);
    }

    // The same bundle rendered whole, with no kept pages, is the same export.
    fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true });
    const whole = await writeExport(data, out, sessions);
    expect([whole.site!.built, whole.rootDigest]).toEqual([whole.site!.pages, changed.rootDigest]);
  });

  it('renders again a kept page that was edited in an export or replaced in the cache, rather than trusting it', { timeout: 120_000 }, async () => {
    const root = copyOfFixtures({ forFile: true });
    const data = temporaryFolder({ forFile: true });
    collectOnce(root, data);
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult];
    for (const session of sessions) parseSession(data, session);
    const out = path.join(temporaryFolder({ forFile: true }), 'export');
    const first = await writeExport(data, out, sessions);
    const page = path.join(out, 'site', 'c', `${FIXTURE_SESSIONS.rewind}.html`);
    const rendered = fs.readFileSync(page, 'utf8');
    // The export's page and the cache's are one file.
    const cached = fs.readdirSync(path.join(data, '_site-cache', 'pages'), { recursive: true }).map(String).filter((name) => name.endsWith(`c${path.sep}${FIXTURE_SESSIONS.rewind}.html`));
    expect(cached).toHaveLength(1);
    const kept = path.join(data, '_site-cache', 'pages', cached[0]!);
    expect(fs.statSync(kept).ino).toBe(fs.statSync(page).ino);

    // Edited in place inside the export: the cache's copy changes with it.
    fs.appendFileSync(page, '<p>edited</p>');
    const afterEdit = await writeExport(data, out, sessions);
    expect(afterEdit.site!.built).toBeGreaterThan(0);
    expect(fs.readFileSync(page, 'utf8')).toBe(rendered);
    expect(afterEdit.rootDigest).toBe(first.rootDigest);

    // Replaced inside the cache by another file of the same size.
    const replacement = `${kept}.new`;
    fs.writeFileSync(replacement, rendered.replace('<h1>', '<h2>'));
    fs.renameSync(replacement, kept);
    const afterReplace = await writeExport(data, out, sessions);
    expect(afterReplace.site!.built).toBeGreaterThan(0);
    expect(fs.readFileSync(page, 'utf8')).toBe(rendered);
    expect(afterReplace.rootDigest).toBe(first.rootDigest);

    // Nothing changed since: every page is kept, and the export is the same.
    const again = await writeExport(data, out, sessions);
    expect([again.site!.built, again.rootDigest]).toEqual([0, first.rootDigest]);
  });

  it('keeps the pages of a conversation that grew whose talks did not change, as the bytes a whole render gives', { timeout: 240_000 }, async () => {
    const { root, data, out, session, t, writeNewLines } = await growingTranscript('pages of a growing conversation', '-home-user-pages');
    // A talk of 36 tool results of 32 KB shown each is past a page's
    // budget alone, so it has a page of its own (generator/talk-pages.ts).
    const longTalk = (label: string): void => {
      t.prompt(`Read every log of ${label}.`);
      for (let index = 0; index < 36; index++) {
        const id = `toolu_${label}_${index}`;
        const [call] = t.call([toolUseBlock(id, 'Bash', { command: `cat ${label}-${index}.log` })]);
        const output = `${label} step ${index} ok\n`.repeat(2000);
        t.result(id, call!, output, { toolUseResult: { stdout: output, stderr: '', interrupted: false } });
      }
      t.call([textBlock(`Every log of ${label} is clean.`)]);
    };
    longTalk('first');
    longTalk('second');
    t.prompt('Anything else?');
    t.call([textBlock('Nothing else.')]);
    writeNewLines();
    const exportAgain = async () => {
      collectOnce(root, data);
      parseSession(data, session);
      return writeExport(data, out, [session]);
    };
    const first = await exportAgain();
    const pages = [`c/${session}.html`, `c/${session}-2.html`, `c/${session}-3.html`];
    for (const page of pages) expect(fs.existsSync(path.join(out, 'site', page)), page).toBe(true);
    const before = new Map(pages.map((page) => [page, fs.readFileSync(path.join(out, 'site', page))]));
    // Its evidence pages (models/evidence.ts): the next collection lands the new lines in a landed file of their own.
    const evidenceOf = (): string[] => fs.readdirSync(path.join(out, 'site', 'e')).filter((name) => name.startsWith(`${session}--`));
    const evidenceBefore = new Map(evidenceOf().map((name) => [name, fs.readFileSync(path.join(out, 'site', 'e', name))]));
    expect(evidenceBefore.size).toBeGreaterThan(1);

    // A short talk joins the last page. The first page, which holds the
    // conversation's facts, and the last are rendered again, with the index,
    // the search page and the glossary; the middle one is the bytes it was.
    t.prompt('One more thing: say done.');
    t.call([textBlock('Done.')]);
    writeNewLines();
    const grown = await exportAgain();
    expect(grown.rootDigest).not.toBe(first.rootDigest);
    // Every evidence page is kept as well, and the new landed file's written.
    const added = evidenceOf().length - evidenceBefore.size;
    expect(added).toBeGreaterThan(0);
    expect([grown.site!.keptFromEarlier, grown.site!.built]).toEqual([1 + evidenceBefore.size, 5 + added]);
    for (const [name, bytes] of evidenceBefore) expect(fs.readFileSync(path.join(out, 'site', 'e', name)).equals(bytes), name).toBe(true);
    expect(fs.readFileSync(path.join(out, 'site', pages[1]!)).equals(before.get(pages[1]!)!)).toBe(true);
    for (const page of [pages[0]!, pages[2]!]) expect(fs.readFileSync(path.join(out, 'site', page)).equals(before.get(page)!), page).toBe(false);

    // A page edited in the export is edited in the cache it is linked from:
    // that earlier render is not trusted, and the next one renders every page.
    fs.appendFileSync(path.join(out, 'site', pages[1]!), '<p>edited</p>');
    t.prompt('And one more.');
    t.call([textBlock('Done again.')]);
    writeNewLines();
    const afterEdit = await exportAgain();
    expect([afterEdit.site!.keptFromEarlier, afterEdit.site!.built]).toEqual([0, 6 + evidenceOf().length]);
    expect(fs.readFileSync(path.join(out, 'site', pages[1]!)).equals(before.get(pages[1]!)!)).toBe(true);

    // Rendered whole, with nothing kept, the site is the same bytes.
    fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true });
    const whole = await writeExport(data, out, [session]);
    expect([whole.site!.keptFromEarlier, whole.site!.built, whole.rootDigest]).toEqual([0, whole.site!.pages, afterEdit.rootDigest]);
  });
});
