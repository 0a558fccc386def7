// gcov's JSON intermediate format (`gcov --json-format --stdout`, gcc 9 and later) read into what
// Orion needs: the execution count of each source line that holds code. Lines gcov does not list
// hold no code (the '-' of its text output).

/** Execution counts by 1-based line number; a line absent from the map holds no code. */
export type LineCounts = ReadonlyMap<number, number>;

interface GcovLine {
  readonly line_number: number;
  readonly count: number;
}

interface GcovFile {
  readonly file: string;
  readonly lines: readonly GcovLine[];
}

/**
 * The line counts of `source` (the file name as it was given to the compiler) in gcov's JSON
 * output, which may hold several documents (one per data file) and entries for headers whose
 * functions were compiled in. Counts of one line from several entries add up (a line's blocks can
 * be listed once per function, e.g. for code in a header included twice). Throws when the output is
 * not gcov JSON or does not mention the source.
 */
export function parseGcovJson(output: string, source: string): LineCounts {
  const counts = new Map<number, number>();
  let found = false;
  for (const doc of output.split('\n').filter((l) => l.trim() !== '')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(doc);
    } catch {
      throw new Error(`gcov printed something that is not JSON: ${doc.slice(0, 120)}`);
    }
    const files = (parsed as { files?: unknown }).files;
    if (!Array.isArray(files)) throw new Error('gcov JSON without a "files" list');
    for (const f of files as GcovFile[]) {
      if (f.file !== source) continue;
      found = true;
      for (const l of f.lines) {
        if (!Number.isInteger(l.line_number) || typeof l.count !== 'number')
          throw new Error(`gcov JSON line entry without line_number or count: ${JSON.stringify(l)}`);
        counts.set(l.line_number, (counts.get(l.line_number) ?? 0) + l.count);
      }
    }
  }
  if (!found) throw new Error(`gcov reported no coverage for ${source}`);
  return counts;
}
