// The waiting renderer renders the one changed conversation's pages from
// the storage zone while the export writes its bundle (render-ahead.ts), and
// the site step takes them only for the bundle they were rendered from: the
// site is the same bytes as one rendered whole, and pages rendered from
// files that changed meanwhile are never taken.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { textBlock, toolUseBlock } from '../../scripts/claude-code-records.ts';
import { sessionDataBeside } from '../../src/landing/layout.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { ReadAhead } from '../../src/site/data/read-ahead.ts';
import { siteCode } from '../../src/site/generator/kept-renderer.ts';
import { renderAhead, takeRenderedAhead, type PageWriter } from '../../src/site/generator/render-ahead.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { expectSameFiles, filesOf, parsedFixtures, temporaryFolder } from '../helpers.ts';
import { sessionizer } from '../cli/launcher.ts';
import { growingTranscript } from './growing-transcript.ts';

const session = FIXTURE_SESSIONS.rewind;

/** A page writer that writes each page's name, and first does `before` once. */
function namingWriter(before?: () => void): PageWriter & { written: string[] } {
  const written: string[] = [];
  let first = true;
  const write = async (_site: unknown, _records: unknown, file: string, output: string): Promise<void> => {
    if (first && before) before();
    first = false;
    fs.mkdirSync(path.dirname(path.join(output, file)), { recursive: true });
    fs.writeFileSync(path.join(output, file), file);
    written.push(file);
  };
  return Object.assign(write, { written });
}

/** Planning renders each talk to cut the pages (data/talk-pages.ts); its code stays plain here. */
const plainHighlighter = () => Promise.resolve({ ensure: async () => undefined });

describe('rendering ahead', () => {
  it('gives the export the changed conversation’s pages, the same bytes as a site rendered whole', { timeout: 240_000 }, async () => {
    const { root, data, out, session: id, t, writeNewLines } = await growingTranscript('a conversation rendered ahead', '-home-user-ahead');
    const talk = (label: string): void => {
      t.prompt(`Look at ${label}, please.`);
      const [call] = t.call([textBlock(`I will read ${label}.`), toolUseBlock(`toolu_${label}`, 'Bash', { command: `cat ${label}.md` })]);
      t.result(`toolu_${label}`, call!, `# ${label}\n\nIt **holds** one line.`, { toolUseResult: { stdout: `# ${label}`, stderr: '', interrupted: false } });
      t.call([textBlock(`## ${label}\n\n- one line\n- nothing else`)]);
    };
    talk('first');
    talk('second');
    writeNewLines();
    type Said = { site_pages_rendered_ahead: number; site_pages_built: number; site_pages_kept_from_earlier: number };
    const exported = (): Said => {
      const result = sessionizer(['export', '--source', root, '--data', data, '--out', out, '--json']);
      expect(result.code, result.error).toBe(0);
      return JSON.parse(result.out) as Said;
    };
    // The one conversation of a first export is rendered ahead too.
    expect(exported().site_pages_rendered_ahead).toBeGreaterThan(0);
    talk('third');
    writeNewLines();
    const second = exported();
    expect(second.site_pages_rendered_ahead).toBeGreaterThan(0);
    // A page rendered ahead was rendered, or kept from its earlier render, as any other.
    expect(second.site_pages_built + second.site_pages_kept_from_earlier).toBeGreaterThanOrEqual(second.site_pages_rendered_ahead);
    expect(fs.readFileSync(path.join(out, 'site', 'c', `${id}.html`), 'utf8')).toContain('Look at third, please.');
    // No folder of pages rendered ahead is left in the cache.
    expect(fs.readdirSync(path.join(data, '_site-cache')).filter((name) => name.startsWith('ahead-'))).toEqual([]);

    // The bundle alone, rendered whole with nothing kept, is the same site.
    const folder = temporaryFolder();
    await buildSite(path.join(out, 'bundle'), path.join(folder, 'site'), path.join(folder, 'cache'));
    expectSameFiles(filesOf(path.join(folder, 'site')), filesOf(path.join(out, 'site')));
    expect(sessionizer(['verify', out]).code).toBe(0);
  });

  it('renders every page of the conversation into a folder of the cache, which the site step places only when its input selects them', async () => {
    const { data } = parsedFixtures([session]);
    const cache = temporaryFolder();
    const writer = namingWriter();
    const ahead = (await renderAhead({ data, conversation: session, code: siteCode() }, cache, plainHighlighter, new ReadAhead(), writer))!;
    expect(ahead).toBeDefined();
    expect(ahead.pages).toEqual(writer.written);
    expect(ahead.pages.some((page) => page.startsWith('b/'))).toBe(true);
    expect(path.dirname(ahead.folder)).toBe(cache);
    expect(fs.existsSync(ahead.plan)).toBe(true);

    // Another plan is another bundle, or another code: nothing is placed, and the folder goes.
    const output = temporaryFolder();
    const elsewhere = { bundle: data, cache, selection: { conversations: [{ id: session, render: true, plan: path.join(cache, 'another', 'plan.json') }] } };
    expect(takeRenderedAhead(ahead, elsewhere, output)).toEqual({ input: elsewhere, placed: 0 });
    expect(fs.existsSync(ahead.folder)).toBe(false);
    expect(fs.readdirSync(output)).toEqual([]);

    // The plan it was rendered with: every page placed, and the conversation no longer to render.
    const again = (await renderAhead({ data, conversation: session, code: siteCode() }, cache, plainHighlighter, new ReadAhead(), namingWriter()))!;
    const selected = { bundle: data, cache, selection: { conversations: [{ id: session, render: true, plan: again.plan }] } };
    const taken = takeRenderedAhead(again, selected, output);
    expect(taken.placed).toBe(again.pages.length);
    expect(taken.input.selection!.conversations).toEqual([{ id: session, render: false, plan: again.plan }]);
    for (const page of again.pages) expect(fs.readFileSync(path.join(output, page), 'utf8')).toBe(page);
    expect(fs.existsSync(again.folder)).toBe(false);
  });

  it('keeps nothing when a file of the conversation is replaced while it renders, or the render fails', async () => {
    const { data } = parsedFixtures([session]);
    const cache = temporaryFolder();
    const sessionData = sessionDataBeside(landedFilesOfSession(data, session)[0]!.path);
    // The same bytes in another file: its stamp tells it from the one digested.
    const replaced = namingWriter(() => {
      fs.copyFileSync(sessionData, `${sessionData}.new`);
      fs.renameSync(`${sessionData}.new`, sessionData);
    });
    expect(await renderAhead({ data, conversation: session, code: siteCode() }, cache, plainHighlighter, new ReadAhead(), replaced)).toBeUndefined();
    expect(replaced.written.length).toBeGreaterThan(0);
    const failing: PageWriter = async () => {
      throw new Error('a page that cannot be rendered');
    };
    expect(await renderAhead({ data, conversation: session, code: siteCode() }, cache, plainHighlighter, new ReadAhead(), failing)).toBeUndefined();
    expect(fs.readdirSync(cache).filter((name) => name.startsWith('ahead-'))).toEqual([]);
  });
});
