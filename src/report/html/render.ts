// The report as one self-contained HTML page: tables and finding sections are static HTML (they
// read without scripts), plots are drawn by the inlined charting library from embedded JSON.
// A Content-Security-Policy forbids every network request, so the page provably works offline.
import { join } from 'node:path';
import type { ChartAssets } from './assets.js';
import { CLIENT_SCRIPT } from './client.js';
import { clip, OUTCOME_ORDER, type Distribution, type FileLink, type GroupView, type ReportModel } from './model.js';

/** Groups whose section is open when the page loads (the rest open on a click). */
const OPEN_GROUPS = 3;

/** Group sections on the page at load; more are added a page at a time. */
const GROUPS_PER_PAGE = 100;

/** Renders the page. */
export function renderReport(m: ReportModel, assets: ChartAssets): string {
  const c = m.agg.campaign;
  const title = `Kiln campaign ${c.id}`;
  // biome-ignore format: embedded text
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${esc(title)}</h1><p class="muted">Report written ${esc(m.generatedAt.replace('T', ' ').slice(0, 19))} UTC from <code>${esc(m.outDir)}</code>${c.runningPid !== null ? ' while the campaign runs: <code>kiln fuzz</code> rewrites it every few minutes' : ''}.</p>
<nav><a href="#summary">Summary</a> · <a href="#time">Over time</a> · <a href="#outcomes">Outcomes</a> · <a href="#groups">Findings (${m.groups.length} groups)</a> · <a href="#generator">Generator</a></nav></header>
<main>
${summary(m)}
<section id="time"><h2>Over time</h2>
<p class="muted">Bins of ${m.agg.binMinutes} minute${m.agg.binMinutes === 1 ? '' : 's'} from the campaign's start; gaps are time no session ran.</p>
<h3>Tests per minute</h3><figure class="plot" id="plot-tests"></figure>
<h3>Findings</h3><figure class="plot" id="plot-findings"></figure>
<h3>New groups (first finding of a fingerprint or bucket)</h3><figure class="plot" id="plot-new-groups"></figure>
</section>
<section id="outcomes"><h2>Outcomes per compiler and option set</h2>
<p class="muted">Tests of each configuration by outcome (colour: log scale).</p>
<figure class="plot" id="plot-outcomes"></figure>
</section>
${groupsSection(m)}
${internalSection(m)}
${generatorSection(m)}
</main>
<script type="application/json" id="kiln-data">${jsonForScript(pageData(m))}</script>
<script>${assets.d3}</script>
<script>${assets.plot}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

function summary(m: ReportModel): string {
  const a = m.agg;
  const c = a.campaign;
  const hours = a.timeSpentMs / 3_600_000;
  const counters = Object.entries(c.counters).sort((x, y) => y[1] - x[1]);
  const triaged = m.groups.filter((g) => g.triaged).length;
  const newGroups = [
    a.earlierCampaigns > 0 ? `, ${m.groups.filter((g) => g.newInCampaign).length} new in this campaign` : '',
    a.sessions.length > 1 ? `, ${m.groups.filter((g) => g.newInSession).length} new this session` : '',
  ].join('');
  const rows: [string, string][] = [
    ['started', `${c.startedAt} (${a.sessions.length} session${a.sessions.length === 1 ? '' : 's'})`],
    [
      'state',
      c.runningPid !== null
        ? `running (process ${c.runningPid})`
        : c.endedAt
          ? `stopped ${c.endedAt} (${c.endReason ?? '?'})`
          : 'never ran to an end',
    ],
    ['time spent', `${fmtDuration(a.timeSpentMs)}`],
    ['mode', m.modeChoice],
    ['policy', m.policyName],
    ['jobs', m.jobs === null ? '?' : String(m.jobs)],
    ['programs', `${num(c.programs)} (${num(c.discarded)} discarded by the generator)`],
    ['tests', `${num(c.tests)} (${hours > 0 ? num(Math.round(c.tests / (hours * 60))) : '0'} per minute)`],
    ['findings', `${num(c.findings)} in ${num(m.groups.length)} groups (${triaged} triaged${newGroups})`],
    [
      'internal',
      `${num(c.internal)} program${c.internal === 1 ? '' : 's'} ` +
        'on which every compiler agreed against the interpreter (Kiln bugs)',
    ],
  ];
  // biome-ignore format: embedded text
  return `<section id="summary"><h2>Summary</h2>
<table class="kv">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
<h3>Compilers</h3>
<table><thead><tr><th>name</th><th>version</th><th>command</th></tr></thead><tbody>${m.compilers.map((k) => `<tr><td>${esc(k.name)}</td><td>${esc(k.version)}</td><td><code>${esc(k.command)}</code></td></tr>`).join('')}</tbody></table>
<h3>Option sets</h3><p>${m.optionSets.map((o) => `<code>${esc(o || '(none)')}</code>`).join(' ')}</p>
<h3>Outcomes</h3>
<table><thead><tr><th>outcome</th><th class="n">tests</th></tr></thead><tbody>${counters.map(([k, v]) => `<tr><td>${esc(k)}</td><td class="n">${num(v)}</td></tr>`).join('')}</tbody></table>
</section>`;
}

function groupsSection(m: ReportModel): string {
  if (m.groups.length === 0) return `<section id="groups"><h2>Findings</h2><p>No findings.</p></section>`;
  const sections = m.groups.map((g, i) => groupSection(g, i, m.outDir, m.agg.earlierCampaigns > 0));
  const shown = sections.slice(0, GROUPS_PER_PAGE);
  // Groups past the first page, and every closed section's body, wait in JSON until asked for.
  const deferred = {
    bodies: sections.map((x) => x.closedBody),
    more: sections.slice(GROUPS_PER_PAGE).map((x) => x.html),
  };
  const rest = m.groups.length - shown.length;
  // biome-ignore format: embedded text
  return `<section id="groups"><h2>Findings by group (${num(m.groups.length)})</h2>
<p class="muted">One group per triage fingerprint (the pass to blame), or per campaign bucket for findings not triaged yet (<code>kiln triage</code>), in order of first appearance. Each section shows the group's smallest reduced finding, else its first; a click opens it.</p>
<div id="group-list">
${shown.map((x) => x.html).join('\n')}
</div>
${rest > 0 ? `<p><button type="button" id="more-groups" data-page="${GROUPS_PER_PAGE}">show ${num(Math.min(rest, GROUPS_PER_PAGE))} more groups (${num(rest)} not shown)</button></p>` : ''}
</section>
<script type="application/json" id="kiln-groups">${jsonForScript(deferred)}</script>`;
}

/** The configurations of a group, the first few named. */
function configsText(g: GroupView): string {
  const names = g.affected.map((a) => `${a.compiler} ${a.options}`.trim());
  return names.length <= 4 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/** Marks of a group: new this session (of several), new in this campaign (of several), not triaged. */
function badges(g: GroupView, earlierCampaigns: boolean): string {
  const fresh = g.newInSession
    ? ' <span class="badge new">new this session</span>'
    : earlierCampaigns && g.newInCampaign
      ? ' <span class="badge new">new in this campaign</span>'
      : '';
  return `${fresh}${g.triaged ? '' : ' <span class="badge muted">not triaged</span>'}`;
}

/**
 * A group's section. A closed section's body is returned apart: the page keeps it as a string in
 * JSON and builds it when the section is first opened, so thousands of findings cost the browser
 * neither HTML parsing nor layout at load (the text is still in the file).
 */
function groupSection(
  g: GroupView,
  i: number,
  outDir: string,
  earlierCampaigns: boolean,
): { html: string; closedBody: string | null } {
  const r = g.representative;
  const codeId = `code-${g.anchor}`;
  const crash = r.outcome !== 'wrong-code' && r.stderr.trim() !== '';
  const more = g.count - g.listed.length;
  // biome-ignore format: embedded text
  const head = `<details class="group" id="${g.anchor}" data-index="${i}"${i < OPEN_GROUPS ? ' open' : ''}>
<summary><span class="key">${esc(g.key)}</span> <span class="muted">${esc(g.outcomes.join(', '))} · ${num(g.count)} finding${g.count === 1 ? '' : 's'} · ${esc(configsText(g))} · first ${esc(g.firstSeen.slice(0, 16).replace('T', ' '))}${r.reducedLines !== null ? ` · reduced to ${r.reducedLines} lines` : ''}</span>${badges(g, earlierCampaigns)}</summary>`;
  // biome-ignore format: embedded text
  const body = `<table class="kv">
<tr><th>pass to blame</th><td>${r.fingerprint ? `<code>${esc(r.fingerprint)}</code>` : `not triaged yet: <code>kiln triage ${esc(join(outDir, r.dir))}</code>`}</td></tr>
<tr><th>buckets</th><td>${g.buckets.map((b) => `<code>${esc(b)}</code>`).join(' ')}</td></tr>
<tr><th>configurations</th><td>${g.affected.map((a) => `${esc(`${a.compiler} ${a.options}`.trim())} <span class="muted">(${esc(a.compilerVersion)}; ${a.count})</span>`).join('<br>')}</td></tr>
<tr><th>shown</th><td>${esc(r.id)} (seed ${esc(r.seed)}, ${esc(r.createdAt.slice(0, 19).replace('T', ' '))})</td></tr>
<tr><th>command</th><td><code>${esc(r.command)}</code></td></tr>
<tr><th>expected</th><td><code>${esc(clip(r.expected, 2000))}</code></td></tr>
<tr><th>actual</th><td><code>${esc(clip(r.actual, 2000))}</code></td></tr>
<tr><th>files</th><td class="links">${links(g.links)}</td></tr>
</table>
${crash ? `<h4>Message</h4><pre class="stderr">${esc(clip(r.stderr, 4000))}</pre>` : ''}
${
  g.reducedText !== undefined
    ? `<h4>Reduced test case (${r.reducedLines ?? '?'} lines) <button class="copy" type="button" data-target="${codeId}">copy</button></h4><pre><code id="${codeId}">${esc(g.reducedText)}</code></pre>`
    : `<p class="muted">Not reduced yet: <code>kiln reduce ${esc(join(outDir, r.dir))}</code> (or <code>kiln fuzz --reduce</code>).</p>`
}
<h4>Findings over time</h4><figure class="plot group-plot"></figure>
<h4>Findings</h4>
<ul class="findings">${g.listed.map((f, k) => `<li><a href="${esc(g.listedLinks[k]!.href)}">${esc(f.id)}</a> <span class="muted">${esc(`${f.compiler} ${f.options}`.trim())}, seed ${esc(f.seed)}${f.reducedLines !== null ? `, reduced to ${f.reducedLines} lines` : ''}</span></li>`).join('')}</ul>
${more > 0 ? `<p class="muted">… and ${num(more)} more: <code>kiln findings --out ${esc(outDir)}</code> lists them all.</p>` : ''}`;
  return { html: `${head}\n${i < OPEN_GROUPS ? body : ''}\n</details>`, closedBody: i < OPEN_GROUPS ? null : body };
}

function internalSection(m: ReportModel): string {
  if (m.agg.internalCases.length === 0) return '';
  // biome-ignore format: embedded text
  return `<section id="internal"><h2>Internal cases (Kiln bugs)</h2>
<p class="muted">Every configuration printed the same line and the interpreter expected another: a bug in Kiln, not in a compiler. Please report them.</p>
<table><thead><tr><th>case</th><th>seed</th><th>expected</th><th>printed</th></tr></thead><tbody>${m.agg.internalCases
    .map(
      (x, i) =>
        `<tr><td><a href="${esc(m.internalLinks[i]!.href)}">${esc(x.id)}</a></td><td>${esc(x.seed)}</td><td><code>${esc(x.expected)}</code></td><td><code>${esc(x.actual)}</code></td></tr>`,
    )
    .join('')}</tbody></table></section>`;
}

function generatorSection(m: ReportModel): string {
  const src = (d: Distribution | undefined): string =>
    d === undefined
      ? ''
      : d.source === 'store'
        ? `<p class="muted">Every program of the campaign (${num(d.programs)}).</p>`
        : `<p class="muted">${num(d.programs)} programs regenerated from their seeds.</p>`;
  const plot = (id: string, heading: string, d: Distribution | undefined, none: string): string =>
    `<h3>${heading}</h3>${d ? `${src(d)}<figure class="plot" id="${id}"></figure>` : `<p class="muted">${none}</p>`}`;
  const noSample =
    m.sampleSize === 0
      ? 'No programs were regenerated (report --sample 0, or the campaign has no tested program).'
      : '';
  // biome-ignore format: embedded text
  return `<section id="generator"><h2>Generator</h2>
<h3>Mode mix</h3><p class="muted">Programs tested per generation mode (exact: a program's mode is drawn from its seed).</p>
<table><thead><tr><th>mode</th><th class="n">programs</th><th class="n">findings</th></tr></thead><tbody>${m.modes.map((x) => `<tr><td>${x.mode}</td><td class="n">${num(x.programs)}</td><td class="n">${num(x.findings)}</td></tr>`).join('')}</tbody></table>
<figure class="plot" id="plot-modes"></figure>
<h3>Generation time</h3><p class="muted">Every tested program (generate, execute and repair).</p><figure class="plot" id="plot-genms"></figure>
${plot('plot-sizes', 'Program size', m.sizes, noSample)}
${plot('plot-statements', 'Statements per program', m.statements, noSample)}
${plot('plot-live', 'Live code: share of statements the program executes', m.liveShare, noSample)}
<h3>Feature census</h3>${m.census.length ? `<p class="muted">Share of ${num(m.sampleSize)} regenerated programs using each feature (as <code>kiln stats</code> counts them).</p><figure class="plot" id="plot-census"></figure>` : `<p class="muted">${noSample}</p>`}
</section>`;
}

/** The data the page's script plots: counts only, never per-test rows. */
function pageData(m: ReportModel): unknown {
  const a = m.agg;
  const pairs = (bins: readonly { bin: number; count: number }[]): [number, number][] =>
    bins.map((b) => [b.bin, b.count]);
  const perConfig = new Map<string, number>();
  for (const o of a.outcomes)
    perConfig.set(
      `${o.compiler} ${o.options}`.trim(),
      (perConfig.get(`${o.compiler} ${o.options}`.trim()) ?? 0) + o.count,
    );
  const lastBin = Math.max(0, ...[...a.testsPerBin, ...a.findingsPerBin].map((b) => b.bin));
  const hist = (d: Distribution | undefined): unknown => d?.bins.map((b) => ({ lo: b.lo, hi: b.hi, count: b.count }));
  return {
    start: a.startedAt,
    binMinutes: a.binMinutes,
    lastBin,
    tests: pairs(a.testsPerBin),
    findings: pairs(a.findingsPerBin),
    newGroups: pairs(a.newGroupsPerBin),
    configs: m.configs,
    outcomes: OUTCOME_ORDER.filter((o) => a.outcomes.some((x) => x.outcome === o)).concat(
      [...new Set(a.outcomes.map((x) => x.outcome))].filter((o) => !OUTCOME_ORDER.includes(o)),
    ),
    heat: a.outcomes.map((o) => {
      const config = `${o.compiler} ${o.options}`.trim();
      return { config, outcome: o.outcome, count: o.count, share: o.count / (perConfig.get(config) ?? 1) };
    }),
    groupBins: m.groups.map((g) => pairs(g.bins)),
    modes: m.modes,
    genMs: a.genMs,
    sizes: hist(m.sizes),
    statements: hist(m.statements),
    liveShare: hist(m.liveShare),
    census: m.census.map((c) => ({ feature: c.feature, description: c.description, share: c.share })),
  };
}

function links(ls: readonly FileLink[]): string {
  return ls.map((l) => `<a href="${esc(l.href)}">${esc(l.label)}</a>`).join(' · ');
}

/** JSON safe inside a script element (no `</script>`, no HTML comment openers). */
function jsonForScript(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Escapes text for HTML content and attribute values. */
function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) =>
    ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '"' ? '&quot;' : '&#39;',
  );
}

function num(n: number): string {
  return n.toLocaleString('en-US');
}

function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const mi = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${mi} min` : mi > 0 ? `${mi} min ${s % 60} s` : `${s} s`;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1e23;background:#fff}
header{padding:16px 24px;border-bottom:1px solid #ddd;background:#f7f7f8}
header h1{margin:0 0 4px;font-size:22px}
main{padding:8px 24px 48px;max-width:1100px}
h2{margin-top:32px;border-bottom:1px solid #e3e3e3;padding-bottom:4px}
h3{margin:20px 0 6px;font-size:15px}
h4{margin:14px 0 6px;font-size:13px}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:3px 10px 3px 0;text-align:left;vertical-align:top}
thead th{border-bottom:1px solid #ccc}
table.kv th{color:#555;font-weight:600;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace}
pre{background:#f6f8fa;border:1px solid #e3e3e3;padding:8px;overflow:auto;max-height:480px}
pre.stderr{background:#fff5f5}
.muted{color:#666}
.badge{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;background:#eef;color:#336;margin-left:4px}
.badge.new{background:#fde2e1;color:#a11}
details.group{border:1px solid #e3e3e3;border-radius:6px;margin:6px 0;padding:4px 12px}
details.group>summary{cursor:pointer;font-weight:600}
details.group .key{font-family:ui-monospace,monospace}
figure.plot{margin:4px 0;min-height:40px}
ul.findings{columns:2;font-size:12px}
button.copy{font-size:11px;margin-left:6px}
nav a{margin:0 2px}
`;
