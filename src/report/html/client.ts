// The page's own script: Observable Plot configurations over the data embedded in the page, and
// the copy buttons. Plain ES2020 text (it runs in the browser, not in Node). Plots of finding
// groups are drawn when their section is first opened, so a page with thousands of findings
// draws only what is on screen. `document.body.dataset.ready` tells tests and the benchmark that
// the first render is done.

/** The script inlined after d3 and Plot. */
// biome-ignore format: embedded text
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('kiln-data').textContent);
  var t0 = Date.parse(D.start);
  var binMs = D.binMinutes * 60000;
  var at = function (b) { return new Date(t0 + b * binMs); };
  var lastBin = D.lastBin + 1;
  var width = function (el) { return Math.max(320, Math.min(1000, el.clientWidth || 800)); };

  function mount(id, make) {
    var el = document.getElementById(id);
    if (!el) return;
    el.replaceChildren(make(width(el)));
  }

  // Counts per time bin as bars on a time axis shared by every time plot. Tips (drawn on hover)
  // instead of a title per bar keep a week of bins light for the browser.
  function timeBars(bins, w, opts) {
    var data = bins.map(function (x) { return { x1: at(x[0]), x2: at(x[0] + 1), y: opts.perMinute ? x[1] / D.binMinutes : x[1] }; });
    return Plot.plot({
      width: w, height: opts.height || 200, marginLeft: 56,
      x: { type: 'utc', domain: [at(0), at(lastBin)], label: 'time (UTC)' },
      y: { label: opts.label, grid: true },
      marks: [
        Plot.rectY(data, { x1: 'x1', x2: 'x2', y: 'y', fill: opts.color, inset: 0, tip: { format: { x1: true, x2: false, y: true } } }),
        Plot.ruleY([0]),
      ],
    });
  }

  function histogram(h, w, label, color, format) {
    return Plot.plot({
      width: w, height: 200, marginLeft: 56,
      x: { label: label, tickFormat: format },
      y: { label: 'programs', grid: true },
      marks: [Plot.rectY(h, { x1: 'lo', x2: 'hi', y: 'count', fill: color, insetLeft: 1, tip: true }), Plot.ruleY([0])],
    });
  }

  mount('plot-tests', function (w) { return timeBars(D.tests, w, { label: 'tests per minute', perMinute: true, color: '#4269d0' }); });
  mount('plot-findings', function (w) { return timeBars(D.findings, w, { label: 'findings', color: '#ff725c' }); });
  mount('plot-new-groups', function (w) { return timeBars(D.newGroups, w, { label: 'new groups', color: '#a463f2' }); });
  mount('plot-outcomes', function (w) {
    return Plot.plot({
      width: w, height: 60 + 26 * D.configs.length, marginLeft: 180, marginBottom: 40,
      x: { domain: D.outcomes, label: null, axis: 'top' },
      y: { domain: D.configs, label: null },
      color: { type: 'log', scheme: 'blues', legend: true, label: 'tests' },
      marks: [
        Plot.cell(D.heat, { x: 'outcome', y: 'config', fill: 'count', inset: 1, title: function (d) { return d.config + ', ' + d.outcome + ': ' + d.count + ' tests (' + (100 * d.share).toFixed(2) + '%)'; } }),
        Plot.text(D.heat, { x: 'outcome', y: 'config', text: function (d) { return d.count.toLocaleString(); }, fill: function (d) { return d.share > 0.5 ? 'white' : 'black'; } }),
      ],
    });
  });
  mount('plot-modes', function (w) {
    return Plot.plot({
      width: w, height: 140, marginLeft: 70,
      x: { label: 'programs', grid: true },
      y: { label: null, domain: D.modes.map(function (m) { return m.mode; }) },
      marks: [Plot.barX(D.modes, { y: 'mode', x: 'programs', fill: '#97bbf5', title: function (m) { return m.programs + ' programs, ' + m.findings + ' findings'; } }), Plot.ruleX([0])],
    });
  });
  mount('plot-genms', function (w) { return histogram(D.genMs, w, 'generation time (ms)', '#6cc5b0'); });
  if (D.sizes) mount('plot-sizes', function (w) { return histogram(D.sizes, w, 'lines of C', '#efb118'); });
  if (D.statements) mount('plot-statements', function (w) { return histogram(D.statements, w, 'statements', '#9c6b4e'); });
  if (D.liveShare) mount('plot-live', function (w) { return histogram(D.liveShare, w, 'share of statements executed', '#3ca951', function (x) { return Math.round(100 * x) + '%'; }); });
  if (D.census.length) mount('plot-census', function (w) {
    return Plot.plot({
      width: w, height: 30 + 16 * D.census.length, marginLeft: 210,
      x: { label: 'share of programs', domain: [0, 1], tickFormat: '%', grid: true },
      y: { label: null, domain: D.census.map(function (c) { return c.description; }) },
      marks: [Plot.barX(D.census, { y: 'description', x: 'share', fill: '#ff8ab7', title: function (c) { return c.feature + ': ' + (100 * c.share).toFixed(0) + '%'; } }), Plot.ruleX([0])],
    });
  });

  // Copy buttons: the clipboard API where the page may use it, a selection otherwise.
  function bindCopy(root) {
    root.querySelectorAll('button.copy').forEach(function (b) {
      b.addEventListener('click', function () {
        var code = document.getElementById(b.dataset.target);
        var text = code.textContent;
        var done = function () { b.textContent = 'copied'; setTimeout(function () { b.textContent = 'copy'; }, 1500); };
        var fallback = function () {
          var r = document.createRange(); r.selectNodeContents(code);
          var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
          try { document.execCommand('copy'); done(); } catch (e) { b.textContent = 'select and copy'; }
        };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback); else fallback();
      });
    });
  }
  bindCopy(document);

  // A closed group's body, and every group past the first page, are HTML kept in JSON: a body
  // becomes part of the page, and its plot is drawn, when its section is first opened.
  var deferred;
  function lazy() { return deferred || (deferred = JSON.parse(document.getElementById('kiln-groups').textContent)); }
  function openGroup(details) {
    if (details.dataset.drawn) return;
    details.dataset.drawn = '1';
    var html = lazy().bodies[details.dataset.index];
    if (html) {
      details.insertAdjacentHTML('beforeend', html);
      bindCopy(details);
    }
    var el = details.querySelector('.group-plot');
    var bins = D.groupBins[details.dataset.index];
    el.replaceChildren(timeBars(bins, width(el), { label: 'findings', color: '#ff725c', height: 140 }));
  }
  function wire(d) {
    if (d.open) openGroup(d);
    d.addEventListener('toggle', function () { if (d.open) openGroup(d); });
  }
  document.querySelectorAll('details.group').forEach(wire);
  var more = document.getElementById('more-groups');
  var shownMore = 0;
  if (more) more.addEventListener('click', function () {
    var list = lazy().more;
    var size = Number(more.dataset.page);
    var page = list.slice(shownMore, shownMore + size);
    var holder = document.getElementById('group-list');
    var first = holder.children.length;
    holder.insertAdjacentHTML('beforeend', page.join('\n'));
    for (var i = first; i < holder.children.length; i++) wire(holder.children[i]);
    shownMore += page.length;
    var rest = list.length - shownMore;
    if (rest > 0) more.textContent = 'show ' + Math.min(rest, size).toLocaleString() + ' more groups (' + rest.toLocaleString() + ' not shown)';
    else more.remove();
  });
  // A link to a group opens it.
  window.addEventListener('hashchange', function () {
    var d = document.getElementById(location.hash.slice(1));
    if (d && d.tagName === 'DETAILS') d.open = true;
  });

  document.body.dataset.ready = 'done';
})();
`;
