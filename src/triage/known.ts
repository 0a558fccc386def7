// Known bugs: the crash signatures and wrong-code fingerprints a user has already reported, each
// with a note (a tracker URL), kept in a YAML file (`kiln known add`, or one named by `known:` in
// the campaign's configuration). A finding that matches one is counted and listed apart, and not
// reduced again: a campaign of days meets the same crash again and again.
//
//   - key: "compiler-crash:clang:LoopDeletionPass: llvm::breakLoopBackedge < llvm::LoopDeletionPass::run"
//     note: https://github.com/llvm/llvm-project/issues/156588
//     added: 2026-12-07
//     finding: kiln-out/findings/1-8600013-clang-23-O1
//     seen: [clang-22 22.1.8, clang-23 23.1.4]
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { errBadConfig, errFile } from '../diag/errors.js';

/** The file of known bugs an output folder keeps by default. */
const KNOWN_FILE = 'known.yaml';

const Entry = z
  .object({
    key: z
      .string()
      .min(1)
      .describe('a bucket (crash signature) or a triage fingerprint (wrong code: clang:InstCombinePass)'),
    note: z.string().min(1).describe('where it is reported (a tracker URL) or why it is set aside'),
    added: z.string().optional().describe('the day it was added (YYYY-MM-DD)'),
    finding: z.string().optional().describe('the finding folder it was added from'),
    seen: z.array(z.string()).optional().describe('the compilers (name and version) it was seen on'),
    fixedIn: z.string().optional().describe('the first newer compiler on which it no longer shows (kiln known check)'),
  })
  .strict();

/** One known bug. */
export type KnownBug = z.infer<typeof Entry>;

const File = z.array(Entry);

const HEADER =
  '# Bugs already reported: a finding whose bucket or fingerprint is a key here is counted and listed\n' +
  "# as known ('known: NOTE') and not reduced again. Written by 'kiln known add'; edit freely.\n";

/** Reads a file of known bugs; a missing file is an empty list. Throws `KILN_BAD_CONFIG` for broken YAML or fields. */
export function readKnown(path: string): KnownBug[] {
  if (!existsSync(path)) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw errFile(path, `cannot read the known bugs: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parse(text) ?? [];
  } catch (e) {
    throw errBadConfig(path, `not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = File.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const where = issue.path.length
      ? `entry ${Number(issue.path[0]) + 1}${issue.path.length > 1 ? ` field '${issue.path.slice(1).join('.')}'` : ''}`
      : 'the file';
    throw errBadConfig(path, `known bugs: ${where}: ${issue.message} (expected a list of {key, note})`);
  }
  return r.data;
}

/** The known bugs of several files, in order (the first entry of a key wins). */
export function readKnownFiles(paths: readonly string[]): KnownBug[] {
  const out: KnownBug[] = [];
  const keys = new Set<string>();
  for (const p of paths)
    for (const e of readKnown(p)) {
      if (keys.has(e.key)) continue;
      keys.add(e.key);
      out.push(e);
    }
  return out;
}

/** Writes the list (atomically: a reader never sees half a file). */
export function writeKnown(path: string, list: readonly KnownBug[]): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${HEADER}${list.length ? stringify(list, { lineWidth: 0 }) : '[]\n'}`);
    renameSync(tmp, path);
  } catch (e) {
    throw errFile(path, `cannot write the known bugs: ${(e as Error).message}`);
  }
}

/**
 * Adds an entry, or replaces the note of the entry with the same key (seen compilers merged).
 * Returns the entry as stored and whether the key was new.
 */
export function addKnown(path: string, entry: KnownBug): { entry: KnownBug; added: boolean } {
  const list = readKnown(path);
  const at = list.findIndex((e) => e.key === entry.key);
  if (at < 0) {
    writeKnown(path, [...list, entry]);
    return { entry, added: true };
  }
  const old = list[at]!;
  const seen = [...new Set([...(old.seen ?? []), ...(entry.seen ?? [])])];
  const merged: KnownBug = { ...old, ...entry, ...(seen.length ? { seen } : {}), added: old.added ?? entry.added };
  list[at] = merged;
  writeKnown(path, list);
  return { entry: merged, added: false };
}

/** What a finding is matched by: its campaign bucket and, once triaged, its fingerprint. */
export interface KnownProbe {
  readonly bucket: string;
  readonly fingerprint?: string | null;
}

/** The known bug a finding matches (bucket first, then fingerprint), or undefined. */
export function matchKnown(list: readonly KnownBug[], f: KnownProbe): KnownBug | undefined {
  return (
    list.find((e) => e.key === f.bucket) ?? (f.fingerprint ? list.find((e) => e.key === f.fingerprint) : undefined)
  );
}

/** The known-bugs file of an output folder. */
export function knownFileOf(outDir: string): string {
  return join(outDir, KNOWN_FILE);
}
