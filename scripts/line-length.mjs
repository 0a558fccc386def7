// `npm run lint`'s line-length check: no line of code over 120 characters, except inside a
// statement or expression marked as a data table or as embedded text. Biome's formatter breaks
// long expressions but never a long string, template or comment, so this check covers what it
// leaves.
//
// Both are marked with the comment Biome already needs to leave them as written:
//   // biome-ignore format: data table
//   // biome-ignore format: embedded text (a C program, a shell script, compiler output, ...)
// The exemption covers the node the comment precedes (a statement, an array element, an object
// property), as Biome's does. `node scripts/line-length.mjs [FILE...]` checks the files given, or
// every TypeScript and JavaScript file Git tracks.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX = 120;
const MARKER = /^\/\/\s*biome-ignore\s+format:\s*(?:data table|embedded text)\b/;
const CODE = /\.(?:ts|mts|cts|mjs|js)$/;

/** The 1-based line numbers of `text` that lie inside a node marked as a data table or embedded text. */
function dataTableLines(path, text) {
  const kind = path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const lines = new Set();
  const seen = new Set();
  const visit = (node) => {
    // The outermost node starting after a comment owns it (a statement before its expression).
    if (!seen.has(node.pos)) {
      seen.add(node.pos);
      const comments = ts.getLeadingCommentRanges(text, node.pos) ?? [];
      if (comments.some((c) => MARKER.test(text.slice(c.pos, c.end)))) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.end).line;
        for (let l = first; l <= last; l++) lines.add(l + 1);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** `path:line: N characters` for each line of `path` over the limit and outside marked nodes. */
function longLines(path) {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (!lines.some((l) => l.length > MAX)) return [];
  const exempt = dataTableLines(path, text);
  const out = [];
  for (const [i, l] of lines.entries()) {
    if (l.length > MAX && !exempt.has(i + 1)) out.push(`${path}:${i + 1}: ${l.length} characters`);
  }
  return out;
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
        .split('\0')
        .filter((f) => CODE.test(f) && existsSync(f));
const found = files.flatMap(longLines);
for (const f of found) console.error(f);
if (found.length > 0) {
  console.error(
    `${found.length} line${found.length === 1 ? '' : 's'} over ${MAX} characters: split the string or comment, ` +
      'or mark a data table or embedded text (docs/contributing.md)',
  );
  process.exit(1);
}
