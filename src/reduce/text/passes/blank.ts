import { editListPass, type Pass } from '../pass.js';
import { lineUnits } from './lines.js';

/** The text without blank lines and trailing blanks. */
function dropBlankLines(text: string): string {
  const kept = lineUnits(text).map((r) => text.slice(r.start, r.end).replace(/[ \t\r]+(\n?)$/, '$1'));
  const out = kept.join('');
  return out !== '' && !out.endsWith('\n') ? `${out}\n` : out;
}

/**
 * The text re-laid out: blank lines dropped, runs of blanks in code collapsed, lines indented two
 * spaces per brace level. Strings, character constants, comments and preprocessor lines keep their
 * inner spacing; a line after a backslash continuation keeps its indentation.
 */
function tidyLayout(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let inBlockComment = false;
  let continued = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[ \t\r]+$/, '');
    if (line.trim() === '' && !inBlockComment) {
      continued = false;
      continue;
    }
    const keepIndent = continued || inBlockComment;
    const body = keepIndent ? line : line.trimStart();
    const preprocessor = !keepIndent && body.startsWith('#');
    let code = '';
    let lineStartDepth = depth;
    for (let i = 0; i < body.length; i++) {
      const ch = body[i]!;
      if (inBlockComment) {
        code += ch;
        if (ch === '*' && body[i + 1] === '/') {
          code += '/';
          i++;
          inBlockComment = false;
        }
      } else if (ch === '/' && body[i + 1] === '*') {
        inBlockComment = true;
        code += '/*';
        i++;
      } else if (ch === '/' && body[i + 1] === '/') {
        code += body.slice(i);
        break;
      } else if (ch === '"' || ch === "'") {
        // Copy the literal verbatim, honouring escapes.
        let j = i + 1;
        while (j < body.length && body[j] !== ch) j += body[j] === '\\' ? 2 : 1;
        code += body.slice(i, j + 1);
        i = j;
      } else if (ch === ' ' || ch === '\t') {
        if (preprocessor) code += ch;
        else if (!code.endsWith(' ')) code += ' ';
      } else {
        if (!preprocessor) {
          if (ch === '{') depth++;
          else if (ch === '}') depth = Math.max(0, depth - 1);
        }
        code += ch;
      }
    }
    if (!keepIndent && body.startsWith('}')) lineStartDepth = Math.max(0, lineStartDepth - 1);
    const indent = keepIndent || preprocessor ? '' : '  '.repeat(lineStartDepth);
    out.push(indent + (keepIndent ? code : code.replace(/ +$/, '')));
    continued = line.endsWith('\\');
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Tidies layout: re-indents and collapses blanks, or (if that is rejected) only drops blank lines. */
export function blankPass(): Pass<number> {
  return editListPass('blank', (text) => {
    const options = [tidyLayout(text), dropBlankLines(text)].filter(
      (t, i, all) => t.length < text.length && all.indexOf(t) === i,
    );
    return options.map((t) => [{ start: 0, end: text.length, replacement: t }]);
  });
}
