import { closeSync, existsSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

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
  mkdirSync(parent, { recursive: true });
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
