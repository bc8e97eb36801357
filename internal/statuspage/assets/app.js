// The status page: polls api/status every 2 s and draws it. Every value is
// set as text (never as HTML), so nothing read from a database can become
// markup.
'use strict';

const POLL_MS = 2000;
const CHART_SECONDS = 3600;
const token = new URLSearchParams(location.hash.slice(1)).get('token');

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function duration(s) {
  if (s === null || s === undefined) return '—';
  if (s < 60) return s.toFixed(1) + ' s';
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.round(s % 60);
  return h ? `${h} h ${m} min` : `${m} min ${sec} s`;
}

function count(n) { return Number(n).toLocaleString('en-US'); }

function when(iso) { return new Date(iso).toLocaleString(); }

function phaseBadge(phase) {
  return el('span', {class: 'phase phase-' + String(phase).replace(/ /g, '-'), 'data-phase': phase}, phase);
}

function errorBox(err) {
  if (!err) return null;
  return el('div', {class: 'error', role: 'alert'},
    el('time', {datetime: err.at}, 'last error, ' + when(err.at)), err.message);
}

// lagChart draws the lag samples of the last hour (of less while the
// stream is younger); gaps (no value) break the line.
function lagChart(points, now) {
  const W = 600, H = 140, L = 44, B = 18, T = 8;
  const end = Date.parse(now) / 1000;
  const oldest = points.length ? points[0].t : end;
  const span = Math.min(CHART_SECONDS, Math.max(60, end - oldest));
  const start = end - span;
  const vals = points.filter(p => p.lag !== null && p.t >= start).map(p => p.lag);
  const top = Math.max(1, ...vals) * 1.1;
  const x = t => L + (W - L - 4) * (t - start) / span;
  const y = v => T + (H - T - B) * (1 - v / top);
  const s = svg('svg', {class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'lag over the last ' + duration(span)});
  s.append(svg('line', {class: 'axis', x1: L, y1: y(0), x2: W - 4, y2: y(0)}));
  s.append(svg('line', {class: 'axis', x1: L, y1: T, x2: L, y2: y(0)}));
  s.append(svg('text', {x: L - 4, y: T + 10, 'text-anchor': 'end'}, duration(top)));
  s.append(svg('text', {x: L - 4, y: y(0), 'text-anchor': 'end'}, '0'));
  s.append(svg('text', {x: L, y: H - 4}, '−' + Math.round(span / 60) + ' min'));
  s.append(svg('text', {x: W - 4, y: H - 4, 'text-anchor': 'end'}, 'now'));
  let run = [];
  const flush = () => {
    if (run.length === 1) run.push(run[0]);
    if (run.length) s.append(svg('polyline', {class: 'lag', points: run.join(' ')}));
    run = [];
  };
  for (const p of points) {
    if (p.t < start) continue;
    if (p.lag === null) { flush(); continue; }
    run.push(x(p.t).toFixed(1) + ',' + y(p.lag).toFixed(1));
  }
  flush();
  return s;
}

function streamCard(st, now) {
  const facts = [
    ['Source', st.source || '—'], ['Target', st.target || '—'],
    ['Read', st.read_position || '—'], ['Applied', st.applied_position || '—'],
    ['Rows/s', count(st.rows_per_second)], ['Queue', count(st.queue)], ['Changes applied', count(st.changes)],
    ['Phase since', when(st.phase_since)],
  ];
  const dl = el('dl', {}, el('dt', {}, 'Lag'), el('dd', {class: 'big lag-now', 'data-lag': st.lag_seconds}, duration(st.lag_seconds)));
  for (const [k, v] of facts) dl.append(el('dt', {}, k), el('dd', {}, v));
  const card = el('article', {class: 'card stream', 'data-stream': st.name},
    el('h2', {}, el('span', {class: 'name'}, st.name), phaseBadge(st.phase), el('span', {class: 'muted'}, st.kind)),
    el('div', {class: 'grid'}, dl, el('div', {}, el('div', {class: 'muted'}, 'Lag'), lagChart(st.lag_history, now))),
    errorBox(st.last_error));
  if (st.policy_changes.length) {
    const tb = el('tbody');
    for (const p of st.policy_changes) {
      tb.append(el('tr', {}, el('td', {}, p.table), el('td', {}, p.column), el('td', {}, p.policy), el('td', {class: 'num'}, count(p.rows))));
    }
    card.append(el('h3', {}, 'Values changed by a policy'),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Table'), el('th', {}, 'Column'), el('th', {}, 'Policy'), el('th', {}, 'Rows'))), tb));
  }
  return card;
}

function bar(percent, done) {
  return el('div', {class: done ? 'bar done' : 'bar'}, el('span', {style: null, 'data-width': percent}));
}

function snapshotCard(sn) {
  const tb = el('tbody');
  for (const t of sn.tables) {
    tb.append(el('tr', {class: 'table', 'data-table': t.name, 'data-percent': t.percent},
      el('td', {}, t.name), el('td', {class: 'num'}, count(t.rows)), el('td', {class: 'num'}, count(t.estimated_rows)),
      el('td', {}, bar(t.percent, t.done)), el('td', {class: 'num percent'}, t.percent.toFixed(1) + ' %'),
      el('td', {class: 'num'}, t.done ? 'done' : duration(t.eta_seconds))));
  }
  return el('article', {class: 'card snapshot', 'data-stream': sn.stream},
    el('h2', {}, el('span', {}, 'Snapshot ', el('span', {class: 'name'}, sn.stream)), phaseBadge(sn.phase)),
    el('p', {}, `${count(sn.rows)} of ~${count(sn.estimated_rows)} rows · `,
      el('span', {class: 'percent'}, sn.percent.toFixed(1) + ' %'),
      ` · tables ${sn.tables_done}/${sn.tables.length} · ETA ${sn.phase === 'copying' ? duration(sn.eta_seconds) : '—'}`),
    bar(sn.percent, sn.phase === 'done'),
    el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Table'), el('th', {}, 'Rows'), el('th', {}, 'Estimated'),
      el('th', {}, 'Progress'), el('th', {}, ''), el('th', {}, 'ETA'))), tb),
    errorBox(sn.last_error));
}

function verifyCard(v) {
  const tb = el('tbody');
  for (const r of v.results) {
    tb.append(el('tr', {class: 'verify-table', 'data-table': r.table, 'data-result': r.result},
      el('td', {}, r.table), el('td', {}, phaseBadge(r.result)), el('td', {class: 'num'}, count(r.rows)),
      el('td', {class: 'num'}, count(r.only_in_source)), el('td', {class: 'num'}, count(r.only_in_target)),
      el('td', {class: 'num'}, count(r.differing)), el('td', {class: 'num'}, count(r.policy_rows)),
      el('td', {class: 'num'}, count(r.rechecked)), el('td', {class: 'num'}, count(r.repaired)),
      el('td', {}, r.error || '')));
  }
  const head = ['Table', 'Result', 'Rows', 'Only in source', 'Only in target', 'Differing', 'By policy', 'In flight (rechecked)', 'Repaired', 'Error'];
  return el('article', {class: 'card verify', 'data-stream': v.name},
    el('h2', {}, el('span', {}, 'Verify ', el('span', {class: 'name'}, v.name)), phaseBadge(v.result)),
    el('p', {}, `tables ${v.tables_done}/${v.tables} · `, el('span', {class: 'percent'}, v.percent.toFixed(1) + ' %'), ' of the source compared'),
    bar(v.percent, v.result !== 'running'),
    el('table', {}, el('thead', {}, el('tr', {}, ...head.map(h => el('th', {}, h)))), tb));
}

function cutoverCard(c) {
  const tb = el('tbody');
  for (const s of c.steps) {
    tb.append(el('tr', {class: 'cutover-step', 'data-step': s.name, 'data-result': s.result},
      el('td', {}, s.name), el('td', {}, phaseBadge(s.result)),
      el('td', {class: 'num'}, s.result === 'ok' || s.result === 'failed' ? duration(s.seconds) : ''), el('td', {}, s.detail || '')));
  }
  return el('article', {class: 'card cutover', 'data-stream': c.name},
    el('h2', {}, el('span', {}, 'Cutover ', el('span', {class: 'name'}, c.name)), phaseBadge(c.result)),
    el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Step'), el('th', {}, 'State'), el('th', {}, 'Took'), el('th', {}, 'Detail'))), tb));
}

function alterCard(a) {
  const facts = [['Chunks', `${count(a.chunks_done)} of ${count(a.chunks)}`], ['Rows copied', count(a.rows)],
    ['Rows/s', count(a.rows_per_second)], ['Changed keys pending', count(a.keys_pending)], ['Changes applied', count(a.applied)],
    ['Paused', a.paused || 'no'], ['Throttle', a.throttle || '—'], ['Replica lag', a.replicas || '—']];
  const dl = el('dl', {});
  for (const [k, v] of facts) dl.append(el('dt', {}, k), el('dd', {class: 'alter-' + k.toLowerCase().replace(/[^a-z]+/g, '-')}, v));
  return el('article', {class: 'card alter', 'data-table': a.name},
    el('h2', {}, el('span', {}, 'Alter ', el('span', {class: 'name'}, a.name)), phaseBadge(a.phase)),
    el('p', {}, el('span', {class: 'percent'}, a.percent.toFixed(1) + ' %'), ' of the chunks copied'),
    bar(a.percent, a.phase === 'done'), dl, errorBox(a.last_error));
}

function mergedCard(m) {
  const tb = el('tbody');
  for (const sh of m.shards) {
    tb.append(el('tr', {class: 'merged-shard', 'data-shard': sh.shard, 'data-held': sh.held},
      el('td', {}, sh.shard), el('td', {}, sh.watermark ? when(sh.watermark) : 'none yet'),
      el('td', {class: 'num'}, duration(sh.age_seconds)), el('td', {}, sh.held ? 'holds the topic back' : '')));
  }
  return el('article', {class: 'card merged', 'data-topic': m.topic},
    el('h2', {}, el('span', {}, 'Merged topic ', el('span', {class: 'name'}, m.topic))),
    el('p', {}, 'last merged ', m.released ? when(m.released) : 'none yet', ' · delay ',
      el('span', {class: 'merged-delay'}, duration(m.delay_seconds))),
    el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Shard'), el('th', {}, 'Watermark'), el('th', {}, 'Age'), el('th', {}, ''))), tb));
}

// The bars' widths are set through the DOM (the CSP allows no inline styles).
function sizeBars(root) {
  for (const s of root.querySelectorAll('[data-width]')) s.style.width = s.dataset.width + '%';
}

function render(st) {
  document.getElementById('command').textContent = st.command;
  document.getElementById('meta').textContent = `started ${when(st.started)} · updated ${when(st.now)}`;
  const streams = document.getElementById('streams');
  streams.replaceChildren(...st.streams.map(s => streamCard(s, st.now)));
  const snaps = document.getElementById('snapshots');
  snaps.replaceChildren(...st.cutovers.map(cutoverCard), ...st.snapshots.map(snapshotCard), ...st.verifies.map(verifyCard),
    ...st.alters.map(alterCard), ...st.merged_topics.map(mergedCard));
  const kinds = [st.streams, st.snapshots, st.verifies, st.cutovers, st.alters, st.merged_topics];
  if (kinds.every(k => !k.length)) streams.append(el('p', {class: 'muted'}, 'Nothing running yet.'));
  sizeBars(document.body);
}

function setConn(msg) {
  const c = document.getElementById('conn');
  c.textContent = msg;
  c.hidden = !msg;
}

async function refresh() {
  try {
    const res = await fetch('api/status', {headers: token ? {Authorization: 'Bearer ' + token} : {}, cache: 'no-store'});
    if (!res.ok) throw new Error(res.status + ': ' + (await res.text()).trim());
    render(await res.json());
    setConn('');
  } catch (e) {
    setConn('cannot read the status (' + e.message + '); showing the last one read');
  }
  setTimeout(refresh, POLL_MS);
}

refresh();
