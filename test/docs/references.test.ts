// Every file or folder that Kiln's documents and code comments name exists in the repository, every
// section they cite is there, and the README stays short with every command in its table.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The repository's own top-level folders. A word that starts with one of them followed by a slash
 * is a repository path; anything else (a finding folder, a path on the user's machine, a URL) is not.
 */
const TOP_FOLDERS = ['src', 'test', 'bench', 'scripts', 'docs', '.ci'];

/** Folders a campaign or the reducer writes, whose files a document may name without their existing here. */
const OUTPUT_FOLDERS = new Set(['kiln-out', 'findings', 'reduced', 'internal']);

/** A reference that does not resolve, as `file:line: what`. */
type Problem = string;

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** Every file under the repository's own folders, relative to the root, for glob references. */
const REPO_FILES: readonly string[] = TOP_FOLDERS.filter((f) => existsSync(join(ROOT, f))).flatMap((f) =>
  walk(join(ROOT, f), () => true).map((p) => relative(ROOT, p)),
);

/** Whether a repository path (possibly a glob with `*`) names something that exists. */
function pathExists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const pattern = new RegExp(
    `^${path
      .split(/(\*\*\/|\*\*|\*)/)
      .map((part) =>
        part === '**/'
          ? '(?:.*/)?'
          : part === '**'
            ? '.*'
            : part === '*'
              ? '[^/]*'
              : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('')}`,
  );
  return REPO_FILES.some((f) => pattern.test(f));
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces turned into hyphens. */
function slug(heading: string): string {
  return plainHeading(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's text as displayed: links reduced to their text, code marks dropped. */
function plainHeading(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim();
}

/** The headings of a markdown file outside its code blocks. */
function headings(file: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) {
      const m = /^#{1,6}\s+(.*)$/.exec(line);
      if (m) out.push(m[1]!);
    }
  }
  return out;
}

/** The anchors of a markdown file, with GitHub's -1, -2 … for repeated headings. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(file)) {
    const base = slug(h);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * Repository paths named in a text: words that start with a top-level folder and a slash (not
 * inside another path, a URL or a home folder), upper-case root documents such as the README,
 * and any markdown file named with a folder other than an output folder (a document cited in a
 * folder that may not exist).
 */
function namedPaths(text: string): { path: string; index: number }[] {
  const out: { path: string; index: number }[] = [];
  const folders = TOP_FOLDERS.map((f) => f.replace('.', '\\.')).join('|');
  const inRepo = new RegExp(`(?<![\\w./~$@:-])((?:${folders})/[\\w.*/-]*)`, 'g');
  for (const m of text.matchAll(inRepo)) out.push({ path: m[1]!.replace(/[.-]+$/, ''), index: m.index });
  for (const m of text.matchAll(/(?<![\w./~$@:-])([A-Z][A-Z0-9_-]*\.md)\b/g)) out.push({ path: m[1]!, index: m.index });
  for (const m of text.matchAll(/(?<![\w./~$@:-])((?:[\w-]+\/)+[\w.-]+\.md)\b/g)) {
    const first = m[1]!.split('/')[0]!;
    if (!TOP_FOLDERS.includes(first) && !OUTPUT_FOLDERS.has(first)) out.push({ path: m[1]!, index: m.index });
  }
  return out;
}

/** Sections cited as a markdown file followed by a quoted heading, with or without a comma or brackets. */
function citedSections(text: string): { file: string; section: string; index: number }[] {
  return [...text.matchAll(/\b([\w./-]+\.md),?\s+\(?"([^"]+)"/g)].map((m) => ({
    file: m[1]!,
    section: m[2]!,
    index: m.index,
  }));
}

function checkText(file: string, text: string, offsetLine = 0): Problem[] {
  const problems: Problem[] = [];
  const at = (index: number): string => `${file}:${lineOf(text, index) + offsetLine}`;
  for (const { path, index } of namedPaths(text)) {
    if (!pathExists(path)) problems.push(`${at(index)}: names ${path}, which is not in the repository`);
  }
  for (const { file: doc, section, index } of citedSections(text)) {
    const target = join(ROOT, doc);
    if (!existsSync(target)) continue; // already reported as a missing path
    if (!headings(target).some((h) => plainHeading(h).startsWith(section))) {
      problems.push(`${at(index)}: cites section "${section}" of ${doc}, which has no such heading`);
    }
  }
  return problems;
}

function checkMarkdown(file: string): Problem[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const problems = checkText(file, text);
  // Relative links resolve from the document's folder; code blocks hold no links.
  const prose = text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' '));
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // a URL
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const resolved = pathPart === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURI(pathPart));
    const where = `${file}:${lineOf(text, m.index)}`;
    if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
      problems.push(`${where}: links to ${target}, which is not in the repository`);
    } else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
      problems.push(`${where}: links to ${target}, but ${relative(ROOT, resolved)} has no heading with that anchor`);
    }
  }
  return problems;
}

/** The comments of a TypeScript or JavaScript file, each with the line it starts on. */
function comments(path: string): { text: string; line: number }[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const found = new Map<number, string>();
  const take = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) found.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found].map(([pos, comment]) => ({ text: comment, line: source.getLineAndCharacterOfPosition(pos).line }));
}

const MARKDOWN = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const CODE = ['src', 'test', 'bench', 'scripts'].flatMap((f) =>
  walk(join(ROOT, f), (p) => /\.(ts|mts|mjs|js)$/.test(p)).map((p) => relative(ROOT, p)),
);

describe('references in documents and comments', () => {
  it('finds the documents and code it is meant to walk', () => {
    expect(MARKDOWN).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/benchmarks.md']));
    expect(CODE.length).toBeGreaterThan(100);
  });

  it.each(MARKDOWN)('%s: every path, link, anchor and cited section resolves', (file) => {
    expect(checkMarkdown(file)).toEqual([]);
  });

  it('code comments: every path and cited section resolves', () => {
    const problems = CODE.flatMap((file) => comments(join(ROOT, file)).flatMap((c) => checkText(file, c.text, c.line)));
    expect(problems).toEqual([]);
  });

  it('fails on a missing file, a dead link, a dead anchor and a missing section', () => {
    expect(checkText('x.ts', '// see src/harness/nothing-here.ts')).toHaveLength(1);
    expect(checkText('x.ts', '/** DESIGN.md, and notes/sequencing.md */')).toHaveLength(2);
    expect(checkText('x.ts', '// ARCHITECTURE.md, "No such section"')).toHaveLength(1);
    expect(
      checkText('x.ts', '// src/harness/oracle.ts, bench/*.ts, test/**/*.test.ts, ARCHITECTURE.md ("Campaigns")'),
    ).toEqual([]);
    // Paths that are not the repository's: a campaign's output, the user's machine, a URL.
    expect(
      checkText(
        'x.md',
        'kiln-out/findings/1-2-gcc-O2/reduced/report.md, ~/.cache/kiln/bin, /usr/lib/gcc-snapshot/bin/gcc, ' +
          'https://example.org/src/x.ts',
      ),
    ).toEqual([]);
    expect(anchors(join(ROOT, 'ARCHITECTURE.md')).has('campaigns-srcharness-srcstore')).toBe(true);
  });
});

describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is read in five minutes: under 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThan(200);
  });

  it('has every command of kiln --help in its command table', () => {
    const entry = process.env.KILN_ENTRY;
    if (!entry) throw new Error('KILN_ENTRY is not set: the global set-up builds the kiln command');
    const help = spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    const section = help.stdout.split(/^Commands:$/m)[1] ?? '';
    const commands = [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThanOrEqual(12);
    const table = [...readme.matchAll(/^\| `kiln ([a-z][\w-]*)` \|/gm)].map((m) => m[1]!);
    expect(table.sort()).toEqual(expect.arrayContaining(commands.sort()));
    expect(commands.filter((c) => !table.includes(c))).toEqual([]);
  });

  it('starts with the set-up: the install-and-fuzz command and npm test', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && .*npx kiln fuzz --time 2m/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('shows the report picture', () => {
    expect(readme).toMatch(/!\[[^\]]*\]\(docs\/report\.png\)/);
  });
});
