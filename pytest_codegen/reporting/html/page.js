(function () {
  'use strict';
  var PAGE_SIZES = [25, 50, 100, 200];
  var STRIP_MAX = 24;
  var LABELS = {
    passed: 'passed', failed: 'failed', error: 'error', timeout: 'timeout',
    crashed: 'crashed', tampered: 'tampered', unextractable: 'unextractable',
    missing: 'missing', api_error: 'API error', quarantined: 'quarantined'
  };
  var COLORS = {
    passed: '#2da44e', failed: '#cf222e', error: '#e16f24', timeout: '#d4a72c',
    crashed: '#8250df', tampered: '#1f2328', unextractable: '#8c959f', missing: '#c9ced4',
    api_error: '#3d4a5c', quarantined: '#a475f9'
  };
  var SERIES = ['#2f6fde', '#e16f24', '#2da44e', '#8250df', '#cf222e', '#1b7c83',
    '#bf3989', '#6e7781'];
  var SVGNS = 'http://www.w3.org/2000/svg';

  var DATA, KS, PROBLEMS, BYKEY = {};
  var DEFAULTS = { q: '', suite: '', category: '', show: 'all', sort: 'id', page: 1, size: 50 };
  var state = {};
  var open = {};        // problem key -> selected sample position
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  var hayCache = null;

  function fail(msg) {
    document.documentElement.setAttribute('data-error', msg);
    var b = document.getElementById('error-banner');
    if (b) { b.textContent = 'The report could not be drawn: ' + msg; b.hidden = false; }
  }
  window.addEventListener('error', function (e) { fail(String(e.message || e)); });

  // ---- small DOM helpers (text always goes in as text, never as markup) ------------------
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] == null) continue;
        if (k === 'text') e.textContent = attrs[k];
        else if (k === 'style') e.style.cssText = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
    }
    if (kids) append(e, kids);
    return e;
  }
  function append(e, kids) {
    for (var i = 0; i < kids.length; i++) {
      var c = kids[i];
      if (c == null || c === false) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function svgTitle(parent, text) {
    var t = svg('title', {}, parent);
    t.textContent = text;
    return t;
  }
  function esc(s) {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
  }
  function pct(v) { return v == null ? 'n/a' : (v * 100).toFixed(1) + '%'; }
  function num(v) { return v == null ? '' : String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function secs(v) {
    if (v == null) return '';
    if (v < 1) return (v * 1000).toFixed(0) + ' ms';
    if (v < 120) return v.toFixed(2) + ' s';
    var m = Math.floor(v / 60);
    if (m < 120) return m + ' min ' + Math.round(v - 60 * m) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }
  function swatch(outcome) {
    return el('i', { 'class': 'sw', style: 'background:' + (COLORS[outcome] || '#999') });
  }
  function badge(outcome) {
    return el('span', {
      'class': 'badge b-' + outcome, 'data-outcome': outcome,
      style: 'background:' + (COLORS[outcome] || '#999'), text: LABELS[outcome] || outcome
    });
  }
  function outcomeBar(counts, small) {
    var total = 0, o;
    for (o in counts) total += counts[o];
    var bar = el('div', { 'class': 'obar' + (small ? ' small' : '') });
    if (!total) return bar;
    DATA.outcomes.forEach(function (o) {
      var c = counts[o] || 0;
      if (!c) return;
      bar.appendChild(el('i', {
        style: 'width:' + (100 * c / total) + '%;background:' + COLORS[o],
        title: (LABELS[o] || o) + ': ' + num(c) + ' (' + (100 * c / total).toFixed(1) + '%)'
      }));
    });
    return bar;
  }

  // ---- syntax highlighting ---------------------------------------------------------------
  function words(s) {
    var m = {};
    s.split(' ').forEach(function (w) { m[w] = 1; });
    return m;
  }
  var PY_KW = words('False None True and as assert async await break class continue def del ' +
    'elif else except finally for from global if import in is lambda nonlocal not or pass ' +
    'raise return try while with yield match case');
  var PY_BI = words('abs all any bool bytes callable chr dict dir divmod enumerate filter ' +
    'float format frozenset getattr hasattr hash hex id int isinstance issubclass iter len ' +
    'list map max min next object oct open ord pow print range repr reversed round set ' +
    'setattr slice sorted str sum super tuple type zip self cls Exception ValueError ' +
    'TypeError KeyError IndexError RuntimeError NotImplementedError StopIteration');
  var JS_KW = words('async await break case catch class const continue debugger default ' +
    'delete do else export extends false finally for from function if import in ' +
    'instanceof let new null of return static super switch this throw true try typeof ' +
    'undefined var void while with yield');
  var JS_BI = words('Array Boolean Date Error JSON Map Math Number Object Promise RegExp Set ' +
    'String Symbol console document window React useState useEffect useRef useMemo ' +
    'useCallback useContext useReducer fetch require module exports expect test it describe ' +
    'render screen fireEvent waitFor');
  var PY_RE = new RegExp([
    '(#[^\\n]*)',
    '((?:[rRbBuUfF]{1,2})?(?:"{3}[\\s\\S]*?(?:"{3}|$)|\'{3}[\\s\\S]*?(?:\'{3}|$)|' +
      '"(?:\\\\.|[^"\\\\\\n])*"?|\'(?:\\\\.|[^\'\\\\\\n])*\'?))',
    '(\\b(?:0[xXoObB][0-9a-fA-F_]+|\\d[\\d_]*\\.?[\\d_]*(?:[eE][+-]?\\d+)?j?)\\b)',
    '(@[A-Za-z_][\\w.]*)',
    '([A-Za-z_]\\w*)'
  ].join('|'), 'g');
  var JS_RE = new RegExp([
    '(\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$))',
    '("(?:\\\\.|[^"\\\\\\n])*"?|\'(?:\\\\.|[^\'\\\\\\n])*\'?|`(?:\\\\[\\s\\S]|[^`\\\\])*`?)',
    '(\\b(?:0[xXoObB][0-9a-fA-F_]+|\\d[\\d_]*\\.?[\\d_]*(?:[eE][+-]?\\d+)?n?)\\b)',
    '(<\\/?[A-Za-z][\\w.]*|\\/>)',
    '([A-Za-z_$][\\w$]*)'
  ].join('|'), 'g');

  function highlight(code, lang) {
    if (code.length > 300000) return esc(code);
    var js = lang === 'js';
    var re = js ? JS_RE : PY_RE, kw = js ? JS_KW : PY_KW, bi = js ? JS_BI : PY_BI;
    var out = [], last = 0, prev = '', m;
    re.lastIndex = 0;
    while ((m = re.exec(code)) !== null) {
      if (m[0] === '') { re.lastIndex++; continue; }
      if (m.index > last) out.push(esc(code.slice(last, m.index)));
      var t = m[0], cls = null;
      if (m[1]) cls = 'com';
      else if (m[2]) cls = 'str';
      else if (m[3]) cls = 'num';
      else if (m[4]) cls = js ? 'tag' : 'dec';
      else if (kw[t] === 1) cls = 'kw';
      else if (prev === 'def' || prev === 'class' || prev === 'function') cls = 'fn';
      else if (bi[t] === 1) cls = 'bi';
      out.push(cls ? '<span class="tk-' + cls + '">' + esc(t) + '</span>' : esc(t));
      if (m[5]) prev = t; else if (!m[1]) prev = '';
      last = re.lastIndex;
    }
    if (last < code.length) out.push(esc(code.slice(last)));
    return out.join('');
  }
  function completionOf(s) {
    if (s.completion != null) return s.completion;
    var around = s.completion_around;
    return around ? around[0] + s.code + around[1] : '';
  }
  function langOf(sample, fallback) {
    if (sample) {
      if (sample.mode === 'jest') return 'js';
      if (/^python/.test(sample.mode)) return 'py';
    }
    var c = (sample && (sample.code || completionOf(sample))) || fallback || '';
    if (/^\s*def\s|^\s*from\s+\S+\s+import\s|:\s*$/m.test(c)) return 'py';
    if (/^\s*(import\s.+\sfrom\s|export\s|const\s|let\s|function\s)|=>|<\/[A-Za-z]/m.test(c)) {
      return 'js';
    }
    return 'py';
  }
  function codeBox(code, lang, wrap) {
    code = code.replace(/\n$/, '');
    var lines = code.split('\n').length;
    var g = [];
    for (var i = 1; i <= lines; i++) g.push(i);
    var pre = el('pre', { 'class': 'code lang-' + lang });
    pre.innerHTML = highlight(code, lang);  // highlight() escapes every character it emits
    return el('div', { 'class': 'codebox' + (wrap ? ' soft' : '') }, [
      wrap ? null : el('pre', { 'class': 'gutter', 'aria-hidden': 'true', text: g.join('\n') }),
      pre
    ]);
  }

  // ---- header, cards, table ----------------------------------------------------------------
  function renderHeader() {
    var meta = DATA.meta || {};
    var model = meta.model || 'unknown model';
    document.getElementById('model').textContent = model;
    document.title = 'pytest-codegen · ' + model;
    var line = document.getElementById('meta-line');
    function item(label, value) {
      if (value == null || value === '') return;
      line.appendChild(el('span', {}, [label + ' ', el('b', { text: String(value) })]));
    }
    var started = meta.started;
    if (typeof started === 'number') started = new Date(started * 1000).toISOString();
    item('started', started ? String(started).replace('T', ' ').slice(0, 19) : null);
    item('duration', meta.duration_s != null ? secs(meta.duration_s) : null);
    item('source', meta.source ? String(meta.source).split(/[\\/]/).pop() : null);
    item('pytest', meta.pytest_version);
    item('pytest-codegen', meta.plugin_version);
  }
  function card(stat, label, value, sub, raw) {
    return el('div', { 'class': 'card', 'data-stat': stat, 'data-value': raw }, [
      el('div', { 'class': 'label', text: label }),
      el('div', { 'class': 'value', text: value }),
      sub ? el('div', { 'class': 'sub', text: sub }) : null
    ]);
  }
  function renderCards() {
    var t = DATA.totals, box = document.getElementById('cards');
    var suites = {};
    PROBLEMS.forEach(function (p) { suites[p.suite] = 1; });
    var ns = Object.keys(suites).length;
    box.appendChild(card('problems', 'Problems', num(t.problems),
      ns + (ns === 1 ? ' suite' : ' suites'), t.problems));
    box.appendChild(card('samples', 'Samples', num(t.samples), num(t.graded) + ' graded',
      t.samples));
    box.appendChild(card('passed', 'Passed samples', num(t.passed),
      t.graded ? pct(t.passed / t.graded) + ' of graded' : 'none graded', t.passed));
    var flagged = t.attempts || { flagged: 0, categories: {} };
    if (flagged.flagged) {
      box.appendChild(card('attempts', 'Flagged samples', num(flagged.flagged),
        Object.keys(flagged.categories).map(function (c) {
          return c + ' ' + flagged.categories[c];
        }).join(', '), flagged.flagged));
    }
    KS.forEach(function (k) {
      var v = t.pass_at_k[String(k)], ci = (t.ci || {})[String(k)];
      box.appendChild(card('pass@' + k, 'pass@' + k, pct(v),
        v == null ? 'a problem has fewer than ' + k + ' graded samples'
          : 'mean over problems' + (ci ? ', 95% CI ' + pct(ci[0]) + '–' + pct(ci[1]) : ''),
        v == null ? '' : v));
    });
    var legend = el('div', { 'class': 'legend' });
    DATA.outcomes.forEach(function (o) {
      var c = t.counts[o] || 0;
      legend.appendChild(el('span', { 'data-outcome': o, 'data-count': c }, [
        swatch(o), (LABELS[o] || o) + ' ', el('b', { text: num(c) })
      ]));
    });
    var wide = el('div', { 'class': 'card wide', 'data-stat': 'outcomes' }, [
      el('div', { 'class': 'label', text: 'Outcomes of all samples' }),
      outcomeBar(t.counts), legend
    ]);
    box.appendChild(wide);
  }
  function renderSummary() {
    var table = document.getElementById('summary-table');
    var head = el('tr', {}, [
      el('th', { text: 'Suite / category' }), el('th', { text: 'Problems' }),
      el('th', { text: 'Samples' }), el('th', { text: 'Passed' }),
      el('th', { text: 'Outcomes' })
    ]);
    KS.forEach(function (k) { head.appendChild(el('th', { text: 'pass@' + k })); });
    table.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    DATA.summary.forEach(function (row) {
      var isSuite = row.category == null;
      var counts = row.counts || {};
      var graded = 0;
      DATA.graded_outcomes.forEach(function (o) { graded += counts[o] || 0; });
      var tr = el('tr', {
        'class': isSuite ? 'suite-row' : 'cat-row', 'data-suite': row.suite,
        'data-category': isSuite ? null : row.category,
        title: 'Show the problems of ' + (row.base_of || row.suite) +
          (isSuite ? '' : ' / ' + row.category)
      }, [
        el('td', { text: isSuite ? row.suite : (row.category || '(no category)') }),
        el('td', { 'data-col': 'problems', text: num(row.problems) }),
        el('td', { 'data-col': 'samples', text: num(row.samples) }),
        el('td', { 'data-col': 'passed', text: num(counts.passed || 0) + ' / ' + num(graded) }),
        el('td', { 'class': 'outc' }, [outcomeBar(counts, true)])
      ]);
      KS.forEach(function (k) {
        var v = (row.pass_at_k || {})[String(k)];
        var cell = el('td', { 'data-k': k, 'data-value': v == null ? '' : v });
        if (v == null) {
          cell.appendChild(el('span', {
            'class': 'na', text: 'n/a',
            title: 'some problem has fewer than ' + k + ' graded samples'
          }));
        } else {
          var ci = (row.ci || {})[String(k)];
          cell.appendChild(el('span', { 'class': 'pk' }, [
            el('span', { text: pct(v) }),
            ci ? el('span', {
              'class': 'ci', 'data-ci': ci[0] + ' ' + ci[1],
              // an interval cut at 0 or 1 is not symmetric: its ends, not a half-width
              text: Math.abs((v - ci[0]) - (ci[1] - v)) < 5e-4
                ? '± ' + ((ci[1] - ci[0]) * 50).toFixed(1)
                : (ci[0] * 100).toFixed(1) + '–' + (ci[1] * 100).toFixed(1),
              title: '95% interval ' + pct(ci[0]) + '–' + pct(ci[1]) +
                (row.clusters ? ', clustered by ' + row.clusters + ' categories' : '')
            }) : null,
            el('span', { 'class': 'mini' }, [el('i', { style: 'width:' + (100 * v) + '%' })])
          ]));
        }
        tr.appendChild(cell);
      });
      tr.addEventListener('click', function () {
        // A "(base tests)" row scores its suite's problems: it shows them.
        setState({ suite: row.base_of || row.suite, category: isSuite ? '' : (row.category || ''),
          page: 1 });
        document.getElementById('problems-panel').scrollIntoView({ block: 'start' });
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  // The run's pass@k by release window (contest_date): a table per suite, a row per window
  // and k, as the summary's "by quarter" table.
  function renderWindows() {
    var parts = DATA.windows || [];
    if (!parts.length) return;
    document.getElementById('windows-panel').hidden = false;
    var box = document.getElementById('windows'), bodies = {};
    parts.forEach(function (part) {
      var body = bodies[part.suite];
      if (!body) {
        box.appendChild(el('h3', { text: 'By ' + part.facet + ' (' + part.suite + ')' }));
        var head = el('tr', {}, [el('th', { text: part.facet }), el('th', { text: 'Problems' }),
          el('th', { text: 'k' }), el('th', { text: 'pass@k' })]);
        body = bodies[part.suite] = el('tbody');
        box.appendChild(el('div', { 'class': 'table-scroll' }, [el('table', {
          'class': 'summary windows', 'data-facet': part.facet, 'data-suite': part.suite
        }, [el('thead', {}, [head]), body])]));
      }
      var scores = (part.runs[0] || {})['pass@k'] || {};
      KS.forEach(function (k) {
        var score = scores[String(k)] || {}, v = score.value, ci = score.ci;
        body.appendChild(el('tr', { 'data-window': part.value, 'data-k': k }, [
          el('td', { text: part.value }), el('td', { text: num(part.problems) }),
          el('td', { text: String(k) }),
          el('td', { 'data-value': v == null ? '' : v, 'data-ci': ci ? ci[0] + ' ' + ci[1] : '',
            title: ci ? '95% interval ' + pct(ci[0]) + '\u2013' + pct(ci[1]) : 'n/a',
            text: v == null ? 'n/a' : pct(v) + (!ci ? '' : Math.abs((v - ci[0]) - (ci[1] - v)) < 5e-4
              ? ' \u00b1 ' + ((ci[1] - ci[0]) * 50).toFixed(1)
              : ' (' + (ci[0] * 100).toFixed(1) + '\u2013' + (ci[1] * 100).toFixed(1) + ')') })
        ]));
      });
    });
  }

  // ---- charts -------------------------------------------------------------------------------
  function renderPassK() {
    var box = document.getElementById('chart-passk');
    var rows = DATA.summary.filter(function (r) { return r.category == null; });
    var W = 560, H = 260, L = 46, R = 18, T = 14, B = 38;
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img',
      'aria-label': 'pass@k over k per suite' }, box);
    var kmin = KS[0], kmax = KS[KS.length - 1];
    function x(k) { return kmax === kmin ? (L + W - R) / 2 : L + (k - kmin) / (kmax - kmin) *
      (W - L - R); }
    function y(v) { return T + (1 - v) * (H - T - B); }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v ? '#eef0f2' : '#c9ced4' }, s);
      svg('text', { x: L - 8, y: y(v) + 4, 'text-anchor': 'end' }, s).textContent =
        (v * 100) + '%';
    });
    KS.forEach(function (k) {
      svg('line', { x1: x(k), x2: x(k), y1: T, y2: H - B, stroke: '#f3f4f6' }, s);
      svg('text', { x: x(k), y: H - B + 16, 'text-anchor': 'middle' }, s).textContent = k;
    });
    svg('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle',
      'class': 'axis-title' }, s).textContent = 'k (samples drawn)';
    var legend = el('div', { 'class': 'legend' });
    rows.forEach(function (row, i) {
      var color = SERIES[i % SERIES.length];
      var d = '', pen = false, pts = [];
      KS.forEach(function (k) {
        var v = (row.pass_at_k || {})[String(k)];
        if (v == null) { pen = false; return; }
        d += (pen ? 'L' : 'M') + x(k).toFixed(1) + ' ' + y(v).toFixed(1);
        pen = true;
        pts.push([k, v]);
      });
      var g = svg('g', { 'data-suite': row.suite }, s);
      if (d) svg('path', { d: d, fill: 'none', stroke: color, 'stroke-width': 2.2 }, g);
      pts.forEach(function (p) {
        var c = svg('circle', { cx: x(p[0]), cy: y(p[1]), r: 4, fill: '#fff', stroke: color,
          'stroke-width': 2, 'data-k': p[0], 'data-value': p[1] }, g);
        svgTitle(c, row.suite + ': pass@' + p[0] + ' = ' + pct(p[1]));
      });
      var last = pts.length ? pts[pts.length - 1] : null;
      legend.appendChild(el('span', {}, [
        el('i', { 'class': 'sw', style: 'background:' + color }), row.suite + ' ',
        el('b', { text: last ? 'pass@' + last[0] + ' ' + pct(last[1]) : 'n/a' })
      ]));
    });
    if (!rows.length) legend.appendChild(el('span', { text: 'No suites.' }));
    box.appendChild(legend);
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  function renderOutcomes() {
    var box = document.getElementById('chart-outcomes');
    var cats = DATA.summary.filter(function (r) { return r.category != null; });
    var rows = cats.length ? cats : DATA.summary;
    var multi = {};
    rows.forEach(function (r) { multi[r.suite] = 1; });
    multi = Object.keys(multi).length > 1;
    var W = 560, BH = 16, GAP = 9, LW = 170, T = 6, NW = 54;
    var H = T + rows.length * (BH + GAP) + 4;
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img',
      'aria-label': 'outcomes per category' }, box);
    var present = {};
    rows.forEach(function (row, i) {
      var counts = row.counts || {}, total = 0;
      DATA.outcomes.forEach(function (o) { total += counts[o] || 0; });
      var yy = T + i * (BH + GAP);
      var name = row.category == null ? row.suite : (row.category || '(no category)');
      if (multi && row.category != null) name = row.suite + ' / ' + name;
      var g = svg('g', { 'data-suite': row.suite, 'data-category': row.category }, s);
      var label = svg('text', { x: LW - 8, y: yy + BH / 2 + 4, 'text-anchor': 'end' }, g);
      label.textContent = clip(name, 26);
      svgTitle(label, name);
      svg('rect', { x: LW, y: yy, width: W - LW - NW, height: BH, fill: '#eef0f2', rx: 3 }, g);
      var xx = LW;
      DATA.outcomes.forEach(function (o) {
        var c = counts[o] || 0;
        if (!c || !total) return;
        present[o] = 1;
        var w = c / total * (W - LW - NW);
        var r = svg('rect', { x: xx, y: yy, width: Math.max(w, 0.5), height: BH,
          fill: COLORS[o], 'data-outcome': o, 'data-count': c }, g);
        svgTitle(r, name + ': ' + (LABELS[o] || o) + ' ' + num(c) + ' of ' + num(total) +
          ' (' + (100 * c / total).toFixed(1) + '%)');
        xx += w;
      });
      svg('text', { x: W - NW + 8, y: yy + BH / 2 + 4 }, g).textContent = num(total);
    });
    var legend = el('div', { 'class': 'legend' });
    DATA.outcomes.forEach(function (o) {
      if (present[o]) legend.appendChild(el('span', {}, [swatch(o), LABELS[o] || o]));
    });
    box.appendChild(legend);
  }

  // ---- problem list -----------------------------------------------------------------------
  function hay(i) {
    if (!hayCache) hayCache = new Array(PROBLEMS.length);
    var h = hayCache[i];
    if (h == null) {
      var p = PROBLEMS[i], parts = [p.task_id, p.suite, p.category, p.prompt];
      p.samples.forEach(function (s) { if (s.error) parts.push(s.error); });
      h = hayCache[i] = parts.join('\n').toLowerCase();
    }
    return h;
  }
  function rate(p) { return p.n ? p.c / p.n : null; }
  function matchShow(p) {
    var show = state.show;
    if (show === 'failing') return p.c < p.n;
    if (show === 'never') return p.n > 0 && p.c === 0;
    if (show === 'perfect') return p.n > 0 && p.c === p.n;
    if (show.slice(0, 2) === 'o:') return (p.counts[show.slice(2)] || 0) > 0;
    return true;
  }
  function byId(a, b) {
    return collator.compare(a.suite, b.suite) || collator.compare(a.task_id, b.task_id);
  }
  function visible() {
    var q = state.q.trim().toLowerCase(), out = [];
    for (var i = 0; i < PROBLEMS.length; i++) {
      var p = PROBLEMS[i];
      if (state.suite && p.suite !== state.suite) continue;
      if (state.category && p.category !== state.category) continue;
      if (!matchShow(p)) continue;
      if (q && hay(i).indexOf(q) < 0) continue;
      out.push(p);
    }
    var sort = state.sort;
    out.sort(function (a, b) {
      if (sort === 'rate-asc' || sort === 'rate-desc') {
        var ra = rate(a), rb = rate(b);
        if (ra == null || rb == null) {
          if (ra != null || rb != null) return ra == null ? 1 : -1;
        } else if (ra !== rb) {
          return sort === 'rate-asc' ? ra - rb : rb - ra;
        }
      } else if (sort === 'time-desc' && a.duration_s !== b.duration_s) {
        return b.duration_s - a.duration_s;
      }
      return byId(a, b);
    });
    return out;
  }
  function strip(p) {
    var box = el('span', { 'class': 'strip' });
    var n = Math.min(p.samples.length, STRIP_MAX);
    for (var i = 0; i < n; i++) {
      var s = p.samples[i];
      box.appendChild(el('i', {
        style: 'background:' + (COLORS[s.outcome] || '#999'),
        title: '#' + (s.sample_index == null ? i : s.sample_index) + ' ' +
          (LABELS[s.outcome] || s.outcome)
      }));
    }
    if (p.samples.length > n) {
      box.appendChild(el('span', { 'class': 'more', text: '+' + (p.samples.length - n) }));
    }
    return box;
  }
  function rateColor(r) {
    if (r == null) return '#c9ced4';
    return r >= 0.999 ? COLORS.passed : r >= 0.5 ? '#7bc96f' : r > 0 ? COLORS.timeout
      : COLORS.failed;
  }
  function problemRow(p) {
    var r = rate(p), isOpen = Object.prototype.hasOwnProperty.call(open, p.key);
    var head = el('div', {
      'class': 'prob-head', role: 'button', tabindex: '0',
      'aria-expanded': isOpen ? 'true' : 'false'
    }, [
      el('span', { 'class': 'chev' }),
      el('span', { 'class': 'pid', title: p.task_id, text: p.task_id }),
      el('span', { 'class': 'tags' }, [
        el('span', { 'class': 'tag', text: p.suite }),
        p.category ? el('span', { 'class': 'tag cat', text: p.category }) : null
      ]),
      strip(p),
      el('span', { 'class': 'frac', title: 'passed / graded samples', text: p.c + '/' + p.n }),
      el('span', { 'class': 'rate' }, [
        el('span', { 'class': 'bar' }, [el('i', {
          style: 'width:' + (r == null ? 0 : 100 * r) + '%;background:' + rateColor(r)
        })]),
        el('span', { text: r == null ? 'n/a' : Math.round(100 * r) + '%' })
      ])
    ]);
    var row = el('div', {
      'class': 'prob' + (isOpen ? ' open' : ''), 'data-key': p.key, 'data-task': p.task_id,
      'data-suite': p.suite, 'data-rate': r == null ? '' : r
    }, [head]);
    function toggle() {
      if (Object.prototype.hasOwnProperty.call(open, p.key)) {
        delete open[p.key];
        row.classList.remove('open');
        head.setAttribute('aria-expanded', 'false');
        var d = row.querySelector('.drill');
        if (d) row.removeChild(d);
        writeHash(null);
      } else {
        open[p.key] = defaultSample(p);
        row.classList.add('open');
        head.setAttribute('aria-expanded', 'true');
        row.appendChild(drill(p));
        writeHash(p);
      }
    }
    head.addEventListener('click', toggle);
    head.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(); }
    });
    if (isOpen) row.appendChild(drill(p));
    return row;
  }
  function defaultSample(p) {
    // the first graded sample that did not pass says the most; else the first sample
    for (var i = 0; i < p.samples.length; i++) {
      var o = p.samples[i].outcome;
      if (o !== 'passed' && DATA.graded_outcomes.indexOf(o) >= 0) return i;
    }
    return 0;
  }

  // ---- drill-down (built only when a problem is opened) ----------------------------------
  function drill(p) {
    var box = el('div', { 'class': 'drill', 'data-key': p.key });
    var facts = el('div', { 'class': 'facts' }, [
      el('span', {}, ['graded ', el('b', { text: String(p.n) })]),
      el('span', {}, ['passed ', el('b', { text: String(p.c) })]),
      el('span', {}, ['run time ', el('b', { text: secs(p.duration_s) })])
    ]);
    KS.forEach(function (k) {
      facts.appendChild(el('span', {}, ['pass@' + k + ' ', el('b', {
        'data-k': k, text: pct(p.pass_at_k[String(k)])
      })]));
    });
    append(box, [facts]);
    var lang = langOf(p.samples[0], p.prompt);
    if (p.prompt) {
      append(box, [
        el('h4', { text: 'Prompt' }),
        el('div', { 'class': 'prompt' }, [codeBox(p.prompt, lang, true)])
      ]);
    }
    if (!p.samples.length) return box;
    box.appendChild(el('h4', { text: 'Samples' }));
    var tabs = el('div', { 'class': 'tabs', role: 'tablist' });
    var holder = el('div', { 'class': 'sample-holder' });
    var buttons = [];
    function select(i) {
      open[p.key] = i;
      buttons.forEach(function (b, j) {
        b.setAttribute('aria-selected', j === i ? 'true' : 'false');
      });
      holder.textContent = '';
      holder.appendChild(sampleView(p, p.samples[i], i));
    }
    p.samples.forEach(function (s, i) {
      var b = el('button', {
        type: 'button', 'class': 'tab', role: 'tab', 'data-outcome': s.outcome,
        title: LABELS[s.outcome] || s.outcome
      }, [swatch(s.outcome), '#' + (s.sample_index == null ? i : s.sample_index)]);
      b.addEventListener('click', function () { select(i); writeHash(p); });
      buttons.push(b);
      tabs.appendChild(b);
    });
    append(box, [tabs, holder]);
    var sel = open[p.key];
    select(sel >= 0 && sel < p.samples.length ? sel : 0);
    return box;
  }
  function sampleView(p, s, i) {
    var idx = s.sample_index == null ? i : s.sample_index;
    var view = el('div', { 'class': 'sample', 'data-index': idx, 'data-outcome': s.outcome }, [
      el('div', { 'class': 'sample-head' }, [
        badge(s.outcome),
        el('b', { text: 'sample #' + idx }),
        s.duration_s != null ? el('span', { text: secs(s.duration_s) }) : null,
        s.mode ? el('span', { text: s.mode }) : null,
        s.model && s.model !== (DATA.meta || {}).model ? el('span', { text: s.model }) : null,
        s.nodeid ? el('span', { 'class': 'nodeid', text: s.nodeid }) : null
      ])
    ]);
    if (s.error) view.appendChild(el('div', { 'class': 'errmsg', text: s.error }));
    if (s.attempts && s.attempts.length) {
      // What the sample tried besides answering: flags, never part of the verdict.
      var list = el('ul', { 'class': 'attempts' });
      s.attempts.forEach(function (a) {
        list.appendChild(el('li', {}, [el('span', { 'class': 'attempt', text: a.category }),
          el('span', { text: ' ' + a.evidence })]));
      });
      append(view, [el('h4', { text: 'Attempts (' + s.attempts.length + ')' }), list]);
    }
    if (s.tests && s.tests.length) {
      var npass = s.tests.filter(function (t) { return t.status === 'passed'; }).length;
      var tb = el('tbody');
      s.tests.forEach(function (t) {
        var st = t.status || '';
        tb.appendChild(el('tr', { 'data-status': st }, [
          el('td', {}, [COLORS[st] ? badge(st) : el('span', { 'class': 'badge',
            style: 'background:#8c959f', text: st || '?' })]),
          el('td', { 'class': 'tname', text: t.name }),
          el('td', { 'class': 'tmsg', text: t.message || '' })
        ]));
      });
      append(view, [
        el('h4', { text: 'Tests (' + npass + ' of ' + s.tests.length + ' passed)' }),
        el('table', { 'class': 'tests' }, [tb])
      ]);
    }
    var lang = langOf(s, p.prompt);
    if (s.code) {
      append(view, [el('h4', { text: 'Extracted code' }), codeBox(s.code, lang, false)]);
    } else {
      view.appendChild(el('h4', { text: 'Extracted code' }));
      view.appendChild(el('div', { 'class': 'muted', text: s.outcome === 'missing' ||
        s.outcome === 'api_error' ? 'No reply from the model.' :
        'No code could be extracted from the reply.' }));
    }
    var reply = completionOf(s);
    if (reply && reply !== s.code) {
      var raw = el('details', { 'class': 'more' + (s.code ? '' : ' raw-open') },
        [el('summary', { text: 'Model reply (raw)' })]);
      if (!s.code) raw.open = true;
      var built = false;
      function build() {
        if (built || !raw.open) return;
        built = true;
        raw.appendChild(codeBox(reply, lang, true));
      }
      raw.addEventListener('toggle', build);
      build();
      view.appendChild(raw);
    }
    if (s.stderr) {
      append(view, [el('h4', { text: 'stderr' }), el('pre', { 'class': 'out', text: s.stderr })]);
    }
    if (s.stdout) {
      var out = el('details', { 'class': 'more' }, [el('summary', { text: 'stdout' }),
        el('pre', { 'class': 'out', text: s.stdout })]);
      view.appendChild(out);
    }
    return view;
  }

  // ---- state, URL fragment, controls ------------------------------------------------------
  function parseHash() {
    var h = location.hash.replace(/^#/, ''), out = {};
    if (!h) return out;
    h.split('&').forEach(function (part) {
      var i = part.indexOf('=');
      if (i < 0) return;
      try {
        out[decodeURIComponent(part.slice(0, i))] =
          decodeURIComponent(part.slice(i + 1).replace(/\+/g, ' '));
      } catch (e) { /* ignore a malformed part */ }
    });
    return out;
  }
  function writeHash(p) {
    var parts = [];
    Object.keys(DEFAULTS).forEach(function (k) {
      if (String(state[k]) !== String(DEFAULTS[k])) {
        parts.push(k + '=' + encodeURIComponent(state[k]));
      }
    });
    if (p) {
      parts.push('problem=' + encodeURIComponent(p.key).replace(/%2F/g, '/'));
      var sel = open[p.key];
      if (sel) {
        var s = p.samples[sel];
        parts.push('sample=' + (s && s.sample_index != null ? s.sample_index : sel));
      }
    }
    var h = parts.length ? '#' + parts.join('&') : ' ';
    try { history.replaceState(null, '', h === ' ' ? location.pathname + location.search : h); }
    catch (e) { /* file:// in some browsers */ }
  }
  function setState(changes) {
    for (var k in changes) state[k] = changes[k];
    syncControls();
    render();
    writeHash(null);
  }
  function fillSelect(sel, options, value) {
    sel.textContent = '';
    options.forEach(function (o) { sel.appendChild(el('option', { value: o[0], text: o[1] })); });
    sel.value = value;
    if (sel.value !== value) sel.value = options.length ? options[0][0] : '';
  }
  function syncControls() {
    var suites = {}, cats = {};
    PROBLEMS.forEach(function (p) {
      suites[p.suite] = (suites[p.suite] || 0) + 1;
      if (!state.suite || p.suite === state.suite) cats[p.category] = (cats[p.category] || 0) + 1;
    });
    var so = [['', 'All suites']];
    Object.keys(suites).sort(collator.compare).forEach(function (s) {
      so.push([s, s + ' (' + suites[s] + ')']);
    });
    fillSelect(document.getElementById('f-suite'), so, state.suite);
    var co = [['', 'All categories']];
    Object.keys(cats).sort(collator.compare).forEach(function (c) {
      co.push([c, (c || '(no category)') + ' (' + cats[c] + ')']);
    });
    fillSelect(document.getElementById('f-category'), co, state.category);
    state.category = document.getElementById('f-category').value;
    var sh = [['all', 'All problems'], ['failing', 'With failing samples'],
      ['never', 'Never passed'], ['perfect', 'Always passed']];
    DATA.outcomes.forEach(function (o) {
      if (o !== 'passed' && DATA.totals.counts[o]) {
        sh.push(['o:' + o, 'With ' + (LABELS[o] || o) + ' samples']);
      }
    });
    fillSelect(document.getElementById('f-show'), sh, state.show);
    state.show = document.getElementById('f-show').value;
    document.getElementById('f-sort').value = state.sort;
    if (document.getElementById('f-sort').value !== state.sort) {
      state.sort = 'id';
      document.getElementById('f-sort').value = 'id';
    }
    var q = document.getElementById('f-q');
    if (q.value !== state.q) q.value = state.q;
  }
  function render() {
    var list = document.getElementById('problem-list');
    var items = visible();
    var size = state.size, pages = Math.max(1, Math.ceil(items.length / size));
    if (state.page > pages) state.page = pages;
    if (state.page < 1) state.page = 1;
    var start = (state.page - 1) * size, end = Math.min(items.length, start + size);
    list.textContent = '';
    list.setAttribute('data-count', items.length);
    if (!items.length) {
      list.appendChild(el('div', { 'class': 'empty', text: 'No problems match the filters.' }));
    }
    var frag = document.createDocumentFragment();
    for (var i = start; i < end; i++) frag.appendChild(problemRow(items[i]));
    list.appendChild(frag);
    document.getElementById('list-status').textContent = num(items.length) + ' of ' +
      num(PROBLEMS.length) + ' problems';
    renderPager(items.length, start, end, pages);
  }
  function renderPager(total, start, end, pages) {
    var pager = document.getElementById('pager');
    pager.textContent = '';
    var info = el('span', { 'class': 'info', 'data-page': state.page, 'data-pages': pages,
      text: total ? 'Showing ' + num(start + 1) + '–' + num(end) + ' of ' + num(total) +
        ' · page ' + state.page + ' of ' + pages : 'Nothing to show' });
    function btn(label, page, disabled) {
      var b = el('button', { type: 'button', 'class': 'btn', text: label });
      if (disabled) b.disabled = true;
      b.addEventListener('click', function () {
        setState({ page: page });
        document.getElementById('problems-panel').scrollIntoView({ block: 'start' });
      });
      return b;
    }
    var sizeSel = el('select', { 'aria-label': 'Problems per page' });
    PAGE_SIZES.forEach(function (n) {
      sizeSel.appendChild(el('option', { value: n, text: n + ' per page' }));
    });
    sizeSel.value = String(state.size);
    sizeSel.addEventListener('change', function () {
      setState({ size: parseInt(sizeSel.value, 10), page: 1 });
    });
    append(pager, [info, sizeSel, btn('« First', 1, state.page <= 1),
      btn('‹ Prev', state.page - 1, state.page <= 1),
      btn('Next ›', state.page + 1, state.page >= pages),
      btn('Last »', pages, state.page >= pages)]);
  }
  function applyHash() {
    var h = parseHash();
    state = {};
    for (var k in DEFAULTS) state[k] = DEFAULTS[k];
    if (h.q != null) state.q = h.q;
    if (h.suite != null) state.suite = h.suite;
    if (h.category != null) state.category = h.category;
    if (h.show) state.show = h.show;
    if (h.sort) state.sort = h.sort;
    var size = parseInt(h.size, 10);
    if (PAGE_SIZES.indexOf(size) >= 0) state.size = size;
    var page = parseInt(h.page, 10);
    if (page > 0) state.page = page;
    var target = null;
    if (h.problem != null) {
      target = BYKEY[h.problem] || null;
      if (!target) {
        for (var i = 0; i < PROBLEMS.length && !target; i++) {
          if (PROBLEMS[i].task_id === h.problem) target = PROBLEMS[i];
        }
      }
    }
    syncControls();
    if (target) {
      var items = visible();
      var pos = items.indexOf(target);
      if (pos < 0) {  // the filters hide it: show it anyway, unfiltered
        state.q = ''; state.suite = ''; state.category = ''; state.show = 'all';
        syncControls();
        items = visible();
        pos = items.indexOf(target);
      }
      state.page = Math.floor(pos / state.size) + 1;
      var sel = defaultSample(target);
      if (h.sample != null) {
        target.samples.forEach(function (s, j) {
          if (String(s.sample_index == null ? j : s.sample_index) === h.sample) sel = j;
        });
      }
      open = {};
      open[target.key] = sel;
    }
    render();
    if (target) {
      var row = document.querySelector('.prob.open');
      if (row) row.scrollIntoView({ block: 'start' });
    }
  }
  function wireControls() {
    var timer = null;
    document.getElementById('f-q').addEventListener('input', function (e) {
      var v = e.target.value;
      clearTimeout(timer);
      timer = setTimeout(function () { setState({ q: v, page: 1 }); }, 160);
    });
    document.getElementById('f-suite').addEventListener('change', function (e) {
      setState({ suite: e.target.value, category: '', page: 1 });
    });
    ['category', 'show', 'sort'].forEach(function (k) {
      document.getElementById('f-' + k).addEventListener('change', function (e) {
        var c = { page: 1 };
        c[k] = e.target.value;
        setState(c);
      });
    });
    document.getElementById('f-reset').addEventListener('click', function () {
      open = {};
      var c = {};
      for (var k in DEFAULTS) c[k] = DEFAULTS[k];
      setState(c);
    });
    window.addEventListener('hashchange', applyHash);
  }
  function renderFooter() {
    var meta = DATA.meta || {};
    document.getElementById('foot').textContent = 'Generated by pytest-codegen' +
      (meta.plugin_version ? ' ' + meta.plugin_version : '') + ' · ' +
      num(DATA.totals.samples) + ' samples of ' + num(DATA.totals.problems) + ' problems';
  }

  function main() {
    DATA = JSON.parse(document.getElementById('codegen-data').textContent);
    KS = DATA.ks;
    PROBLEMS = DATA.problems;
    PROBLEMS.forEach(function (p) { BYKEY[p.key] = p; });
    renderHeader();
    renderCards();
    renderSummary();
    renderWindows();
    renderPassK();
    renderOutcomes();
    wireControls();
    applyHash();
    renderFooter();
    document.body.setAttribute('data-ready', '1');
  }
  try { main(); } catch (e) { fail(String((e && e.stack) || e)); }
})();
