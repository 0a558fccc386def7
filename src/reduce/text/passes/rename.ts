import type { Edit } from '../edits.js';
import { editListPass, type Pass } from '../pass.js';
import type { SyntaxNode } from '../parser.js';
import { functionDeclarator, functionName, isField, namedNodes } from './syntax.js';

/** Node types that hold a name. */
const NAME_TYPES: ReadonlySet<string> = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'statement_identifier',
]);

/** Declarator wrappers through which a declared identifier is reached via their `declarator` field. */
const DECLARATOR_PARENTS: ReadonlySet<string> = new Set([
  'declaration',
  'init_declarator',
  'pointer_declarator',
  'array_declarator',
  'function_declarator',
  'parenthesized_declarator',
  'attributed_declarator',
  'parameter_declaration',
  'field_declaration',
  'type_definition',
]);

const C_KEYWORDS: ReadonlySet<string> = new Set(
  (
    'auto break case char const continue default do double else enum extern float for goto if inline int ' +
    'long register restrict ' +
    'return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool ' +
    '_Complex _Imaginary _Alignas ' +
    '_Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local asm typeof bool true false NULL main'
  ).split(' '),
);

/** Whether a name node declares its name (rather than using it). */
function declares(n: SyntaxNode): boolean {
  const p = n.parent;
  if (!p) return false;
  if (n.type === 'statement_identifier') return p.type === 'labeled_statement';
  if (
    p.type === 'enumerator' ||
    p.type === 'struct_specifier' ||
    p.type === 'union_specifier' ||
    p.type === 'enum_specifier'
  )
    return isField(n, 'name');
  return DECLARATOR_PARENTS.has(p.type) && isField(n, 'declarator');
}

/** Short names a, b, …, z, aa, ab, … that do not occur anywhere in `used`. */
function* freshNames(used: ReadonlySet<string>): Generator<string> {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let len = 1; ; len++) {
    const idx = new Array<number>(len).fill(0);
    for (;;) {
      const name = idx.map((i) => letters[i]).join('');
      if (!used.has(name) && !C_KEYWORDS.has(name)) yield name;
      let k = len - 1;
      while (k >= 0 && ++idx[k]! === letters.length) idx[k--] = 0;
      if (k < 0) break;
    }
  }
}

/**
 * Shortens identifiers declared in the file (variables, functions, parameters, typedefs, tags,
 * fields, enumerators, labels): each becomes the shortest name not used anywhere in the file, at
 * every occurrence, so the renaming is consistent without scope analysis. Names whose only
 * declarations are prototypes (library functions) and `main` keep their names. Longest savings first.
 */
export function renamePass(): Pass<number> {
  return editListPass('rename', (text, tree) => {
    const nodes = namedNodes(tree.rootNode).filter((n) => NAME_TYPES.has(n.type));
    const declared = new Set<string>();
    const prototypeOnly = new Set<string>();
    for (const n of nodes) {
      if (!declares(n)) continue;
      declared.add(n.text);
      // A function declarator inside a declaration (not a definition) names a prototype.
      if (n.parent?.type === 'function_declarator') {
        let d: SyntaxNode | null = n.parent;
        while (d && d.type !== 'declaration' && d.type !== 'function_definition') d = d.parent;
        if (d?.type === 'declaration' && functionDeclarator(d) && functionName(functionDeclarator(d)!) === n.text)
          prototypeOnly.add(n.text);
      }
    }
    for (const n of namedNodes(tree.rootNode)) {
      if (n.type === 'function_definition') {
        const fd = functionDeclarator(n);
        const name = fd && functionName(fd);
        if (name) prototypeOnly.delete(name);
      }
    }
    const used = new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
    const occurrences = new Map<string, SyntaxNode[]>();
    for (const n of nodes) {
      const name = n.text;
      if (!declared.has(name) || prototypeOnly.has(name) || C_KEYWORDS.has(name)) continue;
      occurrences.set(name, [...(occurrences.get(name) ?? []), n]);
    }
    const fresh = freshNames(used).next().value as string;
    const ranked = [...occurrences.entries()]
      .filter(([name]) => name.length > fresh.length)
      .sort(
        (a, b) =>
          (b[0].length - fresh.length) * b[1].length - (a[0].length - fresh.length) * a[1].length ||
          (a[0] < b[0] ? -1 : 1),
      );
    return ranked.map(([, occ]): Edit[] =>
      occ.map((n) => ({ start: n.startIndex, end: n.endIndex, replacement: fresh })),
    );
  });
}
