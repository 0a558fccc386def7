import { editListPass, type Pass } from '../pass.js';
import { lineUnits } from './lines.js';

/** Tidies layout: drops blank lines and trailing blanks (one candidate; comments and strings untouched). */
export function blankPass(): Pass<number> {
  return editListPass('blank', (text) => {
    const kept = lineUnits(text).map((r) => text.slice(r.start, r.end).replace(/[ \t\r]+(\n?)$/, '$1'));
    let tidy = kept.join('');
    if (tidy !== '' && !tidy.endsWith('\n')) tidy += '\n';
    return tidy.length < text.length ? [[{ start: 0, end: text.length, replacement: tidy }]] : [];
  });
}
