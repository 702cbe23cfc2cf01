(function () {
  'use strict';
  var SVGNS = 'http://www.w3.org/2000/svg';
  var DATA;

  function fail(msg) {
    document.documentElement.setAttribute('data-error', msg);
    var b = document.getElementById('error-banner');
    if (b) { b.textContent = 'The comparison could not be drawn: ' + msg; b.hidden = false; }
  }
  window.addEventListener('error', function (e) { fail(String(e.message || e)); });

  // Text always goes in as text, never as markup.
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v == null) return;
      if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    });
    (kids || []).forEach(function (c) {
      if (c == null) return;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }
  function pct(v) { return v == null ? 'n/a' : (v * 100).toFixed(1) + '%'; }
  function signed(v) { return (v >= 0 ? '+' : '') + (v * 100).toFixed(1); }
  function pval(p) { return p < 0.001 ? p.toExponential(1) : p.toFixed(3); }

  function intervalBar(v, ci) {
    var w = 220, h = 18, box = svg('svg', { width: w, height: h, viewBox: '0 0 ' + w + ' ' + h,
      role: 'img', 'aria-label': pct(v) + (ci ? ', 95% interval ' + pct(ci[0]) + '–' +
      pct(ci[1]) : '') });
    svg('line', { x1: 0, x2: w, y1: h / 2, y2: h / 2, stroke: '#eaeef2', 'stroke-width': 6 }, box);
    if (v == null) return box;
    if (ci) {
      svg('line', { 'class': 'ci', x1: ci[0] * w, x2: ci[1] * w, y1: h / 2, y2: h / 2,
        stroke: '#2f6fde', 'stroke-width': 4, 'stroke-linecap': 'round',
        'data-low': ci[0], 'data-high': ci[1] }, box);
    }
    svg('circle', { cx: v * w, cy: h / 2, r: 5, fill: '#1b2330' }, box);
    return box;
  }

  function renderBoard() {
    var k = String(DATA.k), table = document.getElementById('board');
    var head = el('tr', {}, [el('th', { text: 'Rank' }), el('th', { text: 'Run' }),
      el('th', { text: 'pass@' + k + ' and its interval (0–100%)' })]);
    DATA.ks.forEach(function (kk) {
      head.appendChild(el('th', { text: 'pass@' + kk }));
      head.appendChild(el('th', { text: '95% interval' }));
    });
    head.appendChild(el('th', { text: 'Model' }));
    table.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    var ranked = DATA.runs.slice().sort(function (a, b) {
      return (b.pass_at_k[k] || 0) - (a.pass_at_k[k] || 0);
    });
    ranked.forEach(function (run, i) {
      var tr = el('tr', { 'data-run': run.name }, [
        el('td', { 'class': 'num', text: String(i + 1) }), el('td', { text: run.name }),
        el('td', { 'class': 'bar' }, [intervalBar(run.pass_at_k[k], run.ci[k])])
      ]);
      DATA.ks.forEach(function (kk) {
        var ci = run.ci[String(kk)];
        tr.appendChild(el('td', { 'class': 'num', 'data-k': kk,
          'data-value': run.pass_at_k[String(kk)], text: pct(run.pass_at_k[String(kk)]) }));
        tr.appendChild(el('td', { 'class': 'num', 'data-ci': ci ? ci.join(' ') : null,
          text: ci ? pct(ci[0]) + ' – ' + pct(ci[1]) : 'n/a' }));
      });
      tr.appendChild(el('td', { 'class': 'model', text: run.model }));
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  function pairOf(a, b) {
    for (var i = 0; i < DATA.pairs.length; i++) {
      var p = DATA.pairs[i];
      if (p.a === a && p.b === b) return { pair: p, sign: 1 };
      if (p.a === b && p.b === a) return { pair: p, sign: -1 };
    }
    return null;
  }

  function renderMatrix() {
    document.getElementById('matrix-hint').textContent =
      'Row minus column, pass@' + DATA.k + ' in points, over ' + DATA.problems +
      ' problems. Bold with * : significant at ' + DATA.alpha + ' after Holm\u2019s correction for ' +
      DATA.pairs.length + ' pairs. Hover a cell for its interval and p-value.';
    var names = DATA.runs.map(function (r) { return r.name; });
    var table = document.getElementById('matrix');
    var head = el('tr', {}, [el('th', { text: 'a \\ b' })]);
    names.forEach(function (n) { head.appendChild(el('th', { text: n })); });
    table.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    names.forEach(function (a) {
      var tr = el('tr', {}, [el('th', { text: a })]);
      names.forEach(function (b) {
        if (a === b) { tr.appendChild(el('td', { 'class': 'cell self', text: '·' })); return; }
        var found = pairOf(a, b);
        if (!found) { tr.appendChild(el('td', { 'class': 'cell', text: 'n/a' })); return; }
        var p = found.pair, d = found.sign * p.diff;
        var lo = found.sign > 0 ? p.ci[0] : -p.ci[1], hi = found.sign > 0 ? p.ci[1] : -p.ci[0];
        tr.appendChild(el('td', {
          'class': 'cell ' + (p.significant ? (d > 0 ? 'better' : 'worse') + ' sig' : ''),
          'data-a': a, 'data-b': b, 'data-diff': d, 'data-significant': p.significant ? '1' : '0',
          title: 'difference ' + signed(d) + ' points, 95% interval [' + signed(lo) + ', ' +
            signed(hi) + '], p = ' + pval(p.p) + ' (' + p.test + '), Holm-adjusted ' +
            pval(p.p_holm),
          text: signed(d) + (p.significant ? ' *' : '')
        }));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);

    pairTable(document.getElementById('pairs'), DATA.pairs, DATA.k);
    Object.keys(DATA.pairs_by_k || {}).forEach(function (k) {
      var box = document.getElementById('pairs-by-k');
      box.appendChild(el('h3', { text: 'Pairs at pass@' + k + ' (Holm\u2019s correction over its ' +
        DATA.pairs_by_k[k].length + ' pairs)' }));
      var table = el('table', { 'class': 'pairs', 'data-k': k });
      box.appendChild(el('div', { 'class': 'table-scroll' }, [table]));
      pairTable(table, DATA.pairs_by_k[k], k);
    });
  }

  function pairTable(list, pairs, k) {
    list.appendChild(el('thead', {}, [el('tr', {}, ['a', 'b', 'a − b', '95% interval', 'p',
      'p (Holm)', 'significant', 'mdd', 'test', 'to settle it'].map(function (t) {
      return el('th', { text: t });
    }))]));
    var rows = el('tbody');
    pairs.forEach(function (p) {
      var settle = '';
      if (!p.significant && Math.abs(p.diff) < p.mdd) {
        var ways = [];
        if (p.problems_needed) ways.push('about ' + p.problems_needed + ' problems');
        if (p.samples_needed) ways.push(p.samples_needed + ' samples a problem');
        settle = ways.join(' or ');
      }
      rows.appendChild(el('tr', { 'data-pair': p.a + ' ' + p.b, 'data-k': k,
        'data-diff': p.diff, 'data-significant': p.significant ? '1' : '0' }, [
        el('td', { text: p.a }), el('td', { text: p.b }),
        el('td', { 'class': 'num', text: signed(p.diff) }),
        el('td', { 'class': 'num', text: '[' + signed(p.ci[0]) + ', ' + signed(p.ci[1]) + ']' }),
        el('td', { 'class': 'num', text: pval(p.p) }),
        el('td', { 'class': 'num', text: pval(p.p_holm) }),
        el('td', { 'class': p.significant ? 'sig' : '', text: p.significant ? 'yes' : 'no' }),
        el('td', { 'class': 'num', text: '±' + (p.mdd * 100).toFixed(1) }),
        el('td', { text: p.test }), el('td', { text: settle })
      ]));
    });
    list.appendChild(rows);
  }

  function renderBreakdowns() {
    var parts = DATA.breakdowns || [];
    if (!parts.length) return;
    document.getElementById('breakdowns-panel').hidden = false;
    var box = document.getElementById('breakdowns'), tables = {};
    parts.forEach(function (part) {
      var id = part.facet + ' ' + part.suite, table = tables[id];
      if (!table) {
        box.appendChild(el('h3', { text: 'By ' + part.facet + ' (' + part.suite + ')' }));
        table = tables[id] = el('table', { 'class': 'breakdown', 'data-facet': part.facet,
          'data-suite': part.suite });
        var head = el('tr', {}, [el('th', { text: part.facet }), el('th', { text: 'Problems' }),
          el('th', { text: 'k' })]);
        DATA.runs.forEach(function (run) { head.appendChild(el('th', { text: run.name })); });
        table.appendChild(el('thead', {}, [head]));
        table.appendChild(el('tbody'));
        box.appendChild(el('div', { 'class': 'table-scroll' }, [table]));
      }
      DATA.ks.forEach(function (k) {
        var tr = el('tr', { 'data-value': part.value, 'data-k': k }, [
          el('td', { text: part.value }), el('td', { 'class': 'num', text: String(part.problems) }),
          el('td', { 'class': 'num', text: String(k) })]);
        DATA.runs.forEach(function (run) {
          var score = (part.scores[run.name] || {})[String(k)];
          tr.appendChild(el('td', { 'class': 'bar', 'data-run': run.name,
            'data-score': score ? score[0] : null, title: !score ? 'n/a' : pct(score[0]) +
            (score[1] ? ', 95% interval ' + pct(score[1][0]) + '\u2013' + pct(score[1][1]) : '') },
            [score ? intervalBar(score[0], score[1]) : 'n/a', score ? ' ' + pct(score[0]) : null]));
        });
        table.querySelector('tbody').appendChild(tr);
      });
      if (part.pairs && part.pairs.length) windowPairs(box, tables, part);
    });
  }

  // A release window's pairs, under its facet's table: a − b on the window's problems.
  function windowPairs(box, tables, part) {
    var id = 'pairs ' + part.facet + ' ' + part.suite, table = tables[id];
    if (!table) {
      box.appendChild(el('h4', { text: 'Pairs by ' + part.facet + ' (' + part.suite +
        '), pass@' + DATA.k + ', Holm\u2019s correction within each ' + part.facet }));
      table = tables[id] = el('table', { 'class': 'pairs window-pairs', 'data-facet': part.facet,
        'data-suite': part.suite });
      table.appendChild(el('thead', {}, [el('tr', {}, [part.facet, 'a', 'b', 'a − b',
        '95% interval', 'p (Holm)', 'significant'].map(function (t) {
        return el('th', { text: t });
      }))]));
      table.appendChild(el('tbody'));
      box.appendChild(el('div', { 'class': 'table-scroll' }, [table]));
    }
    part.pairs.forEach(function (p) {
      table.querySelector('tbody').appendChild(el('tr', { 'data-value': part.value,
        'data-pair': p.a + ' ' + p.b, 'data-diff': p.diff,
        'data-significant': p.significant ? '1' : '0' }, [
        el('td', { text: part.value }), el('td', { text: p.a }), el('td', { text: p.b }),
        el('td', { 'class': 'num', text: signed(p.diff) }),
        el('td', { 'class': 'num', text: '[' + signed(p.ci[0]) + ', ' + signed(p.ci[1]) + ']' }),
        el('td', { 'class': 'num', text: pval(p.p_holm) }),
        el('td', { 'class': p.significant ? 'sig' : '', text: p.significant ? 'yes' : 'no' })
      ]));
    });
  }

  function side(name, sample, solved) {
    if (!sample || !sample.nodeid) return el('div', { 'class': 'side' }, [el('h3', { text: name })]);
    return el('div', { 'class': 'side', 'data-run': name }, [
      el('h3', {}, [name + ' · ', el('span', { 'class': solved ? 'solved' : 'unsolved',
        text: sample.passed + '/' + sample.graded + ' passed' })]),
      el('div', { 'class': 'hint', text: sample.nodeid + ' (' + sample.outcome + ')' }),
      sample.error ? el('div', { 'class': 'err', text: sample.error }) : null,
      el('pre', {}, [el('code', { text: sample.code || '(no code)' })])
    ]);
  }

  function renderFlips(index) {
    var box = document.getElementById('flips');
    box.textContent = '';
    var p = DATA.pairs[index];
    if (!p) { box.appendChild(el('p', { 'class': 'empty', text: 'No pairs.' })); return; }
    if (!p.flips.length) {
      box.appendChild(el('p', { 'class': 'empty', text: 'No problem flips between these runs.' }));
      return;
    }
    p.flips.forEach(function (f, i) {
      var aWins = f.score_a > f.score_b;
      box.appendChild(el('details', { 'class': 'flip', 'data-task': f.task_id,
        open: i === 0 ? '' : null }, [
        el('summary', {}, [el('b', { text: f.task_id }), ' (' + f.suite + '): ' +
          (aWins ? p.a : p.b) + ' solves it; pass@' + DATA.k + ' ' + pct(f.score_a) + ' vs ' +
          pct(f.score_b)]),
        el('div', { 'class': 'sides' }, [side(p.a, f.a, aWins), side(p.b, f.b, !aWins)])
      ]));
    });
  }

  function main() {
    var node = document.getElementById('codegen-data');
    DATA = JSON.parse(node.textContent);
    document.getElementById('meta-line').textContent = DATA.runs.length + ' runs · ' +
      DATA.problems + ' problems graded in every run' +
      (DATA.left_out ? ' (' + DATA.left_out + ' graded in some only, left out)' : '') +
      (DATA.clusters ? ' · intervals clustered by ' + DATA.clusters + ' categories' : '');
    renderBoard();
    renderMatrix();
    renderBreakdowns();
    var select = document.getElementById('pair-select');
    DATA.pairs.forEach(function (p, i) {
      select.appendChild(el('option', { value: String(i),
        text: p.a + ' vs ' + p.b + ' (' + p.flips.length + ')' }));
    });
    select.addEventListener('change', function () { renderFlips(Number(select.value)); });
    renderFlips(0);
    document.body.setAttribute('data-ready', '1');
  }
  try { main(); } catch (e) { fail(String(e && e.message || e)); }
})();
