// The kept renderer's children (render.mjs). Each is started with the
// renderer's entry point, loads it, and is then given its work as its first
// message over its IPC channel: the site input it renders and the folder it
// renders into. The site step starts its children so and gives them their
// work at once; an export starts a renderer child as it begins
// (WaitingRenderer), which loads the renderer while the export collects and
// parses, and is given the work of the site step's first child when the
// site is due.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { siteChildEnvironment, startChild, type Child } from './child.ts';
import { keptRenderer, siteBuildRoots, siteCode } from './kept-renderer.ts';
import type { SiteInput } from './site-input.ts';

export const RENDER = fileURLToPath(new URL('./render.mjs', import.meta.url));

/** A message a renderer child is sent: what render.mjs renders. */
export interface RendererWork {
  readonly input: SiteInput;
  /** The folder the pages are written into. */
  readonly output: string;
  /** Another work follows this one (WaitingRenderer.renderAhead): the child waits for it once these pages are written. */
  readonly more?: boolean;
}

/** Starts a renderer child of the kept renderer `entry`, in the folder `cwd`: it loads the renderer and waits for its work (giveWork). */
export function startRenderer(entry: string, cwd: string): Child {
  return startChild(RENDER, [entry], cwd, siteChildEnvironment());
}

/** Gives a renderer child (startRenderer) its work; returns the child, whose `done` is the end of that work. */
export function giveWork(child: Child, work: RendererWork): Child {
  child.send(work);
  return child;
}

/**
 * A renderer child started as an export begins, when a renderer is kept
 * for the current code: starting it and loading the renderer is most of the
 * site step of an export after one conversation changed, and started first
 * it happens beside the collect and parse steps. It does nothing else as it
 * waits: it reads neither the storage zone nor the bundle, and renders
 * nothing ahead (bench/results/measurements-behind-choices.md). The site
 * step's other children are not started ahead for a first export: loading
 * beside this one, they slowed the collect step as much as they saved the
 * site step (bench/results/site-step-2026-12-06-stop-45.md), and started
 * as the bundle is placed they saved it too little to tell
 * (bench/results/peers-2026-12-06-stop-48.md).
 *
 * After one conversation changed, rendering it is most of what is left of
 * the site step: so the export may give the child that conversation as soon
 * as its bundle files are placed and their digest taken, before the rest of
 * the bundle is linked (renderAhead, site.ts). The child renders its pages
 * into a folder of its own, and waits for the site step's work.
 *
 * The site step takes it for its first child (take) when it renders with
 * the renderer it loaded; otherwise, and whenever the export ends without
 * rendering, it is stopped (dismiss), and the pages it rendered ahead are
 * removed.
 */
export class WaitingRenderer {
  /** Whether the site step took the child: then it is that step's to wait for. */
  private taken = false;
  /** The child's end, once it was stopped unused. */
  private stopped: Promise<void> | undefined;
  /** What the child was given to render ahead of the site step, if anything. */
  private ahead: RenderedAhead | undefined;

  private constructor(
    /** The site's code (kept-renderer.ts, siteCode) as the export began, and the entry point of the renderer kept for it, which the child loaded. */
    readonly code: string,
    readonly entry: string,
    private readonly child: Child,
  ) {
    // A child stopped unused ends stopped, which is no failure; the end of one
    // taken is awaited by the site step that gave it work.
    child.done.catch(() => undefined);
  }

  /**
   * Starts the child, when a renderer is kept for the current code under
   * `roots`; undefined when none is (the site step makes one), or when the
   * child cannot be started: the site step then starts its own, and meets the
   * problem there if it is one.
   */
  static start(roots?: string): WaitingRenderer | undefined {
    try {
      const folder = roots ?? siteBuildRoots();
      const code = siteCode();
      const entry = keptRenderer(code, folder);
      return entry === undefined ? undefined : new WaitingRenderer(code, entry, startRenderer(entry, folder));
    } catch {
      return undefined;
    }
  }

  /** The renderer child's process id. */
  get pid(): number {
    return this.child.pid;
  }

  /**
   * Gives the child conversations to render before the site step, into
   * `output`, a folder made for them: `input` selects them alone, with no
   * page that lists every conversation. Once only, and only before the child is
   * taken or stopped; says whether it was given. The folder is the taker's
   * to remove, or is removed as the child is stopped unused.
   */
  renderAhead(input: SiteInput, output: string): boolean {
    if (this.taken || this.stopped !== undefined || this.ahead !== undefined) return false;
    this.ahead = { plans: new Map((input.selection?.conversations ?? []).filter(({ render }) => render).map(({ id, plan }) => [id, plan])), output };
    giveWork(this.child, { input, output, more: true });
    return true;
  }

  /**
   * The child, for the site step to give its last work to, and what it was
   * given to render ahead, when it loaded the kept renderer `entry` and was
   * neither taken nor stopped; else undefined. A renderer made again after a
   * failure is not the one it loaded, even at the same place, so it is
   * taken once only.
   */
  take(entry: string): { child: Child; ahead: RenderedAhead | undefined } | undefined {
    if (this.taken || this.stopped !== undefined || entry !== this.entry) return undefined;
    this.taken = true;
    return { child: this.child, ahead: this.ahead };
  }

  /** Stops the child unless it was taken; resolves once it has ended, however often it is called. */
  dismiss(): Promise<void> {
    if (this.taken) return Promise.resolve();
    if (this.stopped === undefined) {
      this.child.stop();
      const folder = this.ahead?.output;
      this.stopped = this.child.done.then(
        () => undefined,
        () => undefined,
      ).then(() => {
        if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
      });
    }
    return this.stopped;
  }
}

/** The conversations a renderer child was given to render ahead (WaitingRenderer.renderAhead), each with where it saves its plan, and the folder their pages are written into. */
export interface RenderedAhead {
  readonly plans: ReadonlyMap<string, string>;
  readonly output: string;
}
