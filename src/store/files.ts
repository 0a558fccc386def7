import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One file of a finding or internal-case folder. */
export interface FileSpec {
  readonly name: string;
  readonly content: string;
  /** Unix mode (e.g. 0o755 for repro.sh); default 0o644. */
  readonly mode?: number;
}

/**
 * Writes a folder completely and durably: files go to a hidden temporary folder, each file and the
 * folder are fsync'ed, then it is renamed into place and the parent fsync'ed. A reader never sees
 * a half-written folder; a leftover from a killed run is replaced.
 */
export function writeFolderDurably(parent: string, name: string, files: readonly FileSpec[]): string {
  makeDirectory(parent);
  const final = join(parent, name);
  const tmp = join(parent, `.${name}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  for (const f of files) {
    const fd = openSync(join(tmp, f.name), 'w', f.mode ?? 0o644);
    try {
      fchmodSync(fd, f.mode ?? 0o644);
      writeSync(fd, f.content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  syncDir(tmp);
  if (existsSync(final)) rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
  syncDir(parent);
  return final;
}

/** Replaces one file atomically and durably (temporary file, fsync, rename, fsync of the folder). */
export function replaceFileDurably(path: string, content: string, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    fchmodSync(fd, mode);
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(join(path, '..'));
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * `mkdir -p` that always ends: creates each missing folder of `path` in turn, from the deepest
 * existing ancestor down, and throws the first error (ENOENT, EACCES, ENOTDIR, ...) with its code.
 * Node's `mkdirSync(p, { recursive: true })` retries forever when a parent exists but refuses new
 * entries with ENOENT (`/proc/foo`), at 100% CPU.
 */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(p) === p) throw e;
      missing.push(p);
      continue;
    }
    if (!isDir)
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}' (${p} is a file)`), {
        code: 'ENOTDIR',
        path: p,
      });
    break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      // Another process may have made it meanwhile.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      throw e;
    }
  }
}
