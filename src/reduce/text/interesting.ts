import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { errBadTestScript } from '../../diag/errors.js';
import { killLiveChildren, runProcess, SpawnError } from '../../harness/process.js';

/** Work folders of tests not yet disposed: removed even when Kiln quits at once (a second Ctrl-C). */
const ROOTS = new Set<string>();
let exitWatched = false;
function removeRootsOnExit(): void {
  if (exitWatched) return;
  exitWatched = true;
  process.on('exit', () => {
    killLiveChildren();
    for (const root of ROOTS) rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  });
}

/** How one run of the interestingness test ended. */
export type Verdict = 'interesting' | 'boring' | 'timeout' | 'cancelled';

/**
 * A C-Reduce-compatible interestingness test: an executable run without arguments in a fresh
 * temporary directory that holds the candidate under the original file's basename; exit status 0
 * means interesting. Each run gets its own directory, so runs can proceed in parallel.
 */
export class InterestingnessTest {
  /** Absolute path of the script. */
  readonly script: string;
  private readonly root: string;

  /** Validates the script (exists, is a file, is executable) and creates a private work directory. */
  constructor(
    script: string,
    /** Name the candidate gets inside each run directory (the original's basename). */
    readonly fileName: string,
    /** Wall-clock limit of one run; a run that exceeds it counts as not interesting. */
    readonly timeoutMs: number,
    /** Extra environment of every run (e.g. the variable that defers a script's last guard). */
    private readonly env: Readonly<Record<string, string>> = {},
  ) {
    this.script = resolve(script);
    let isFile = false;
    try {
      isFile = statSync(this.script).isFile();
    } catch {
      throw errBadTestScript(script, 'no such file');
    }
    if (!isFile) throw errBadTestScript(script, 'not a regular file');
    try {
      accessSync(this.script, constants.X_OK);
    } catch {
      throw errBadTestScript(script, 'not executable');
    }
    this.fileName = basename(fileName);
    this.root = mkdtempSync(join(tmpdir(), 'kiln-reduce-'));
    ROOTS.add(this.root);
    removeRootsOnExit();
  }

  /** Runs the test on one candidate text. */
  async run(text: string, signal?: AbortSignal): Promise<Verdict> {
    const dir = await mkdtemp(join(this.root, 'run-'));
    try {
      await writeFile(join(dir, this.fileName), text);
      // TMPDIR inside the run folder: a test killed mid-run (a later candidate won, or its limit
      // passed) cannot clean up after itself (repro.sh's trap does not run on SIGKILL), and this
      // folder is removed either way.
      const r = await runProcess(this.script, [], {
        cwd: dir,
        timeoutMs: this.timeoutMs,
        signal,
        maxOutputBytes: 64 * 1024,
        env: { ...this.env, TMPDIR: dir },
      });
      if (r.aborted) return 'cancelled';
      if (r.timedOut) return 'timeout';
      return r.status === 0 ? 'interesting' : 'boring';
    } catch (e) {
      if (e instanceof SpawnError) throw errBadTestScript(this.script, e.message);
      throw e;
    } finally {
      // A killed test's last processes may still be writing here for a moment (kiln check's
      // tools exit when their parent's group is killed, not at once): retry, and leave what
      // remains to dispose().
      await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }).catch(() => undefined);
    }
  }

  /** Removes the private work directory. */
  dispose(): void {
    ROOTS.delete(this.root);
    rmSync(this.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}
