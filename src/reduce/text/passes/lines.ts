import type { Range } from '../edits.js';
import { chunkedRemovalPass, type ChunkState, type Pass } from '../pass.js';

/** The lines of a text (each with its newline), blank lines excluded: they are the blank pass's job. */
export function lineUnits(text: string): Range[] {
  const out: Range[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl + 1;
    if (text.slice(start, end).trim() !== '') out.push({ start, end });
    start = end;
  }
  return out;
}

/**
 * Line delta debugging: remove all lines, then halves, quarters, … down to single lines. The only
 * pass whose candidates may break the syntax (the interestingness test alone decides).
 */
export function linesPass(): Pass<ChunkState> {
  return chunkedRemovalPass('lines', (text) => lineUnits(text), { allowSyntaxErrors: true, backward: true });
}

/** Candidates a coarse line sweep makes at most (about twice this many, over all chunk sizes). */
const COARSE_LINE_CHUNKS = 32;

/**
 * The line sweep of the first round: halves, quarters, … but no chunk under 1/32 of the lines,
 * so a large file gets about 64 candidates here instead of twice its line count. The fine
 * sweep comes in the main rounds, after the syntax-aware passes have shrunk the file.
 */
export function coarseLinesPass(): Pass<ChunkState> {
  return chunkedRemovalPass('lines-coarse', (text) => lineUnits(text), {
    allowSyntaxErrors: true,
    backward: true,
    minChunk: (n) => Math.ceil(n / COARSE_LINE_CHUNKS),
  });
}
