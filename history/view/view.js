// The timeline of a history check (package history/view). QUASAR holds the
// history; this script draws the part of it in view, and only that part:
// every pan or zoom rebuilds the SVG from the operations that intersect the
// visible time window in the visible lanes (binary search per lane), and
// bars narrower than MINW pixels merge into density bars, so the DOM stays
// at a few hundred elements whatever the history's length. Text comes from
// the data through textContent, never markup.
(function () {
  'use strict';
  const D = QUASAR;
  const n = D.call.length;
  const NS = 'http://www.w3.org/2000/svg';
  const LANE_H = 26, BAR_Y = 5, BAR_H = 16, GROUP_H = 24, GUTTER = 56, MINW = 3;
  const FONT = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
  const lanesDiv = document.getElementById('lanes');
  const plot = document.getElementById('plot');
  const axis = document.getElementById('axis');
  const rangeEl = document.getElementById('range');
  const selEl = document.getElementById('selected');
  const stats = { firstRenderMs: -1, lastRenderMs: 0, renders: 0, elements: 0 };

  // Per operation: its step in a drawn order, the order, focus flags.
  const step = new Int32Array(n), chainOf = new Int32Array(n).fill(-1);
  D.chains.forEach(function (c, ci) {
    c.ops.forEach(function (id, i) { step[id] = i + 1; chainOf[id] = ci; });
  });
  const blocked = new Set(D.blocked);
  const ROLE = ['', 'seq', 'core', 'suffix'];
  const isFocus = function (i) { return D.role[i] !== 0 || blocked.has(i); };
  const retOf = function (i) { return D.ret[i] < 0 ? D.end : D.ret[i]; };
  const groupOfOp = function (i) { return D.lanes[D.lane[i]].group; };

  // Per lane: completed operations by invocation (a process's operations
  // do not overlap, so the ones in a window are contiguous) and pending ones.
  const laneOps = D.lanes.map(function () { return []; });
  const lanePend = D.lanes.map(function () { return []; });
  for (let i = 0; i < n; i++) (D.ret[i] < 0 ? lanePend : laneOps)[D.lane[i]].push(i);

  // Vertical layout: group header rows (partitioned histories) and lanes.
  let rows = [], laneY = new Float64Array(D.lanes.length), totalH = 0;
  function layout() {
    rows = []; let y = 0;
    laneY.fill(-1);
    D.groups.forEach(function (g, gi) {
      if (D.groups.length > 1) { rows.push({ g: gi, y: y }); y += GROUP_H; }
      if (g.collapsed) return;
      D.lanes.forEach(function (l, li) {
        if (l.group === gi) { rows.push({ l: li, y: y }); laneY[li] = y; y += LANE_H; }
      });
    });
    totalH = Math.max(y, 1);
  }

  // The view: time window [t0, t1] over the plot's width.
  let t0 = 0, t1 = Math.max(D.end, 1), W = 800, selected = -1;
  const X = function (t) { return GUTTER + (t - t0) * (W - GUTTER) / (t1 - t0); };
  const T = function (x) { return t0 + (x - GUTTER) * (t1 - t0) / (W - GUTTER); };

  // Text widths, measured once per string.
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = FONT;
  const widths = new Map();
  function textW(s) {
    let w = widths.get(s);
    if (w === undefined) {
      w = ctx.measureText(s).width;
      if (widths.size > 20000) widths.clear();
      widths.set(s, w);
    }
    return w;
  }
  // fit returns the first label that fits in w pixels: the full one, the
  // short one, the short one cut with an ellipsis (keeping at least 4
  // characters after the step number pre), the minimal one (the step
  // number); '' if none fits.
  function fit(full, short, minimal, pre, w) {
    if (textW(full) <= w) return full;
    if (textW(short) <= w) return short;
    const k = pre.length + 4;
    if (short.length > k + 1 && textW(short.slice(0, k) + '…') <= w) {
      let lo = k, hi = short.length - 1;
      while (lo < hi) {
        const m = (lo + hi + 1) >> 1;
        if (textW(short.slice(0, m) + '…') <= w) lo = m; else hi = m - 1;
      }
      return short.slice(0, lo) + '…';
    }
    return minimal && textW(minimal) <= w ? minimal : '';
  }

  // fmtTime renders a time; with a step (the axis), in the unit of the
  // window's magnitude and with the decimals the step needs.
  function fmtTime(t, stepT) {
    if (D.unit === 'event') return String(Math.round(t));
    const mag = stepT ? Math.max(Math.abs(t0), Math.abs(t1)) : Math.abs(t);
    let f = 1, u = 'ns';
    if (mag >= 1e9) { f = 1e9; u = 's'; } else if (mag >= 1e6) { f = 1e6; u = 'ms'; } else if (mag >= 1e3) { f = 1e3; u = 'µs'; }
    const dec = stepT ? Math.max(0, Math.min(9, -Math.floor(Math.log10(stepT / f) + 1e-9))) : (f === 1 ? 0 : 3);
    return (t / f).toFixed(dec) + ' ' + u;
  }
  const name = function (i) { return D.line[i] > 0 ? 'line ' + D.line[i] : 'op #' + i; };
  function describe(i) {
    const proc = D.lanes[D.lane[i]].label;
    let s = proc + ' ' + D.text[i] + (D.line[i] > 0 ? ' (line ' + D.line[i] + ')' : ' (op #' + i + ')');
    s += '\ninvoked at ' + fmtTime(D.call[i]) + ', ' + (D.ret[i] < 0 ? 'no completion' : 'completed at ' + fmtTime(D.ret[i]));
    if (chainOf[i] >= 0) {
      s += '\nstep ' + step[i] + ' of the ' + (D.chains[chainOf[i]].kind === 'witness' ? 'linearization found' : 'longest linearizable prefix found');
    }
    if (D.role[i]) s += '\nin the minimal test case: ' + ['', 'sequential prefix', 'concurrent core', 'revealing suffix'][D.role[i]];
    if (blocked.has(i)) s += '\ncannot be linearized next';
    return s;
  }

  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function title(e, s) { el('title', {}, e).textContent = s; }

  // first returns the first index of the sorted ids whose key is >= t.
  function first(ids, key, t) {
    let lo = 0, hi = ids.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (key(ids[m]) < t) lo = m + 1; else hi = m; }
    return lo;
  }
  const callKey = function (i) { return D.call[i]; };

  function ticks() {
    const span = t1 - t0, px = W - GUTTER;
    let probe = fmtTime(t1, span / 5);
    let minPx = Math.max(90, textW(probe) + 24), stepT = 1;
    const raw = span * minPx / px, p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) { stepT = m * p; if (stepT >= raw) break; }
    if (D.unit === 'event') stepT = Math.max(1, Math.round(stepT));
    const out = [];
    for (let t = Math.max(0, Math.ceil(t0 / stepT) * stepT); t <= t1; t += stepT) out.push(t);
    return { ts: out, step: stepT };
  }

  let pending = false;
  function schedule() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; render(); }); } }

  function render() {
    const start = performance.now();
    W = Math.max(lanesDiv.clientWidth, GUTTER + 100);
    plot.setAttribute('width', W);
    plot.setAttribute('height', totalH);
    plot.setAttribute('viewBox', '0 0 ' + W + ' ' + totalH);
    const top = lanesDiv.scrollTop, bottom = top + lanesDiv.clientHeight;
    const f = document.createDocumentFragment();
    let count = 0;
    const defs = el('defs', {}, f);
    const hatch = el('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
    el('rect', { width: 6, height: 6, fill: '#eee' }, hatch);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#bbb', 'stroke-width': 3 }, hatch);

    const vis = rows.filter(function (r) { return r.y + LANE_H >= top && r.y <= bottom; });
    const tk = ticks();
    // Lane backgrounds and grid.
    vis.forEach(function (r) {
      if (r.l !== undefined) el('rect', { x: GUTTER, y: r.y, width: W - GUTTER, height: LANE_H, class: 'lanebg' + (r.l % 2 ? ' odd' : '') }, f);
    });
    tk.ts.forEach(function (t) { el('line', { x1: X(t), x2: X(t), y1: top, y2: Math.min(bottom, totalH), class: 'grid' }, f); });

    // The orders' lines go under the bars, their points over them.
    const chains = el('g', {}, f);
    // Bars; labels are placed after, focus first.
    const bars = el('g', {}, f);
    const points = el('g', {}, f);
    const labels = [];
    const xmax = W;
    function bar(i, y, pendingBar, room) {
      const x1 = X(D.call[i]), x2 = X(retOf(i));
      const cls = ['op'];
      if (D.role[i]) cls.push(ROLE[D.role[i]]); else if (chainOf[i] >= 0) cls.push('inchain');
      if (blocked.has(i)) cls.push('blocked');
      if (D.status[i] === 1) cls.push('fail');
      if (pendingBar) cls.push('pending');
      if (i === selected) cls.push('sel');
      const g = el('g', { class: cls.join(' '), 'data-op': i }, bars);
      const a = Math.max(x1, GUTTER - 4), b = Math.min(Math.max(x2, x1 + MINW), xmax + 4);
      const h = pendingBar ? BAR_H / 2 : BAR_H;
      el('rect', { x: a, y: y + BAR_Y + (BAR_H - h), width: Math.max(b - a, MINW), height: h, rx: 2 }, g);
      title(g, describe(i));
      count += 3;
      const ca = Math.max(x1, GUTTER), cb = Math.min(x2, xmax);
      const L = { i: i, x: ca, w: cb - ca, y: y, lane: D.lane[i], prio: isFocus(i) ? 0 : pendingBar ? 2 : 1 };
      // A focus operation too narrow for its label may have it beside it,
      // up to the next operation of its lane.
      if (room !== undefined && room - cb > 20) { L.ox = Math.max(cb, GUTTER) + 4; L.ow = room - L.ox - 3; }
      if (cb - ca > 10 || L.ox !== undefined) labels.push(L);
    }
    function dense(run, y) {
      const r = el('rect', { x: Math.max(run.a, GUTTER), y: y + BAR_Y + 3, width: Math.max(run.b - Math.max(run.a, GUTTER), 1), height: BAR_H - 6, class: 'dense' }, bars);
      const l1 = name(run.first), l2 = name(run.last);
      title(r, run.k + ' operations, ' + l1 + ' to ' + l2 + ': zoom in to see them');
      count += 2;
    }
    vis.forEach(function (r) {
      if (r.l === undefined) return;
      const ids = laneOps[r.l];
      let k = first(ids, callKey, t0);
      if (k > 0 && D.ret[ids[k - 1]] >= t0) k--;
      let run = null;
      const focusBars = [];
      for (; k < ids.length && D.call[ids[k]] <= t1; k++) {
        const i = ids[k], x1 = X(D.call[i]), x2 = X(D.ret[i]);
        if (isFocus(i) || i === selected) { focusBars.push([i, k + 1 < ids.length ? X(D.call[ids[k + 1]]) : W]); continue; }
        if (x2 - x1 >= MINW) { if (run) { dense(run, r.y); run = null; } bar(i, r.y, false); continue; }
        if (run && x1 - run.b < 2) { run.b = Math.max(run.b, x2); run.k++; run.last = i; continue; }
        if (run) dense(run, r.y);
        run = { a: x1, b: Math.max(x2, x1 + 1), k: 1, first: i, last: i };
      }
      if (run) dense(run, r.y);
      // Pending operations reach the end of the history; few in practice.
      lanePend[r.l].forEach(function (i) { if (D.call[i] <= t1) bar(i, r.y, true); });
      focusBars.forEach(function (f) { bar(f[0], r.y, false, Math.min(f[1], W)); });
    });

    // The orders: a line through the linearization points in the window.
    D.chains.forEach(function (c) {
      if (!c.ops.length || D.groups[groupOfOp(c.ops[0])].collapsed) return;
      let a = 0, lo = 0, hi = c.at.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (c.at[m] < t0) lo = m + 1; else hi = m; }
      a = Math.max(0, lo - 1);
      let b = a;
      while (b < c.at.length && c.at[b] <= t1) b++;
      b = Math.min(c.at.length, b + 1);
      const y = function (j) { return laneY[D.lane[c.ops[j]]] + BAR_Y + BAR_H; };
      if (b - a > (W - GUTTER) / 4) {
        // Too many points to follow: a band over the lanes says where the
        // order runs, zooming in shows it.
        const g0 = rows.find(function (r) { return r.l !== undefined && D.lanes[r.l].group === groupOfOp(c.ops[0]); });
        const band = el('rect', { x: X(c.at[a]), y: g0.y, width: Math.max(X(c.at[b - 1]) - X(c.at[a]), 1), height: 3, class: 'band ' + c.kind }, points);
        title(band, 'steps ' + (a + 1) + ' to ' + b + ' of the ' + (c.kind === 'witness' ? 'linearization found' : 'longest linearizable prefix found') + ': zoom in to see the order');
        count += 2;
      } else {
        let d = '';
        for (let j = a; j < b; j++) d += (j === a ? 'M' : 'L') + X(c.at[j]).toFixed(1) + ' ' + y(j);
        if (d) { el('path', { d: d, class: 'chain ' + c.kind }, chains); count++; }
      }
      if (b - a <= (W - GUTTER) / 8) {
        for (let j = a; j < b; j++) {
          const p = el('circle', { cx: X(c.at[j]), cy: y(j), r: 3, class: 'pt ' + c.kind }, points);
          title(p, 'step ' + (j + 1) + ': ' + name(c.ops[j]));
          count += 2;
        }
      }
      // The failed prefix ends at the operation that cannot follow it.
      if (c.kind === 'prefix' && b === c.at.length) {
        D.blocked.forEach(function (i) {
          if (groupOfOp(i) !== groupOfOp(c.ops[0])) return;
          const last = c.at.length - 1, xb = X(Math.max(D.call[i], c.at[last]));
          el('path', { d: 'M' + X(c.at[last]) + ' ' + y(last) + 'L' + xb + ' ' + (laneY[D.lane[i]] + BAR_Y + BAR_H), class: 'stuck' }, points);
          count++;
        });
      }
    });

    // Labels: inside their bar, where they fit, never over another label
    // of the lane (a pending bar may lie under later ones).
    labels.sort(function (p, q) { return p.prio - q.prio || p.x - q.x; });
    const taken = new Map();
    const lg = el('g', {}, f);
    labels.forEach(function (L) {
      const i = L.i, pre = step[i] ? step[i] + '. ' : '';
      const full = pre + D.text[i] + ' (' + name(i) + ')', short = pre + D.text[i], minimal = pre ? String(step[i]) : '';
      const used = taken.get(L.lane) || [];
      const free = function (x, w) { for (const u of used) if (x < u[1] + 4 && u[0] < x + w + 4) return false; return true; };
      let s = L.w > 10 ? fit(full, short, minimal, pre, L.w - 6) : '', x = L.x + 3, cls = 'oplabel';
      if ((!s || !free(x, textW(s))) && L.ox !== undefined) { s = fit(full, short, minimal, pre, L.ow); x = L.ox; cls = 'oplabel out'; }
      if (!s) return;
      const w = textW(s);
      if (!free(x, w)) return;
      used.push([x, x + w]); taken.set(L.lane, used);
      const t = el('text', { x: x, y: L.y + BAR_Y + BAR_H - 4, class: cls }, lg);
      t.textContent = s;
      count++;
    });

    // The gutter: lane names and group headers, over anything drawn there.
    el('rect', { x: 0, y: top, width: GUTTER, height: Math.max(bottom - top, 0), class: 'gutter' }, f);
    el('line', { x1: GUTTER, x2: GUTTER, y1: top, y2: Math.min(bottom, totalH), class: 'gutter-edge' }, f);
    vis.forEach(function (r) {
      if (r.l !== undefined) {
        const t = el('text', { x: 6, y: r.y + BAR_Y + BAR_H - 4, class: 'lanelabel' }, f);
        t.textContent = D.lanes[r.l].label;
        count++;
        return;
      }
      const g = D.groups[r.g];
      const h = el('g', { class: 'ghead' + (r.g === 0 && D.blocked.length ? ' reported' : ''), 'data-group': r.g }, f);
      el('rect', { x: 0, y: r.y + 1, width: W, height: GROUP_H - 2 }, h);
      const lanes = D.lanes.filter(function (l) { return l.group === r.g; }).length;
      const t = el('text', { x: 6, y: r.y + 16 }, h);
      t.textContent = (g.collapsed ? '▸ ' : '▾ ') + g.title + ': ' + g.verdict + (g.reason ? ' (' + g.reason + ')' : '') + (r.g === 0 && D.blocked.length ? ' (the failure reported)' : '') +
        ', ' + lanes + ' process' + (lanes === 1 ? '' : 'es') + (g.collapsed ? ' (click to show)' : '');
      count += 3;
    });
    plot.replaceChildren(f);

    // The axis.
    axis.setAttribute('viewBox', '0 0 ' + W + ' 30');
    const af = document.createDocumentFragment();
    el('line', { x1: GUTTER, x2: W, y1: 29.5, y2: 29.5, class: 'axisline' }, af);
    tk.ts.forEach(function (t) {
      const x = X(t);
      const g = el('g', { class: 'tick' }, af);
      el('line', { x1: x, x2: x, y1: 22, y2: 30 }, g);
      const s = fmtTime(t, tk.step), w = textW(s);
      if (x - w / 2 < GUTTER || x + w / 2 > W) return;
      const tx = el('text', { x: x, y: 16, 'text-anchor': 'middle' }, g);
      tx.textContent = s;
      count += 3;
    });
    const unit = el('text', { x: 4, y: 16, class: 'axisunit' }, af);
    unit.textContent = D.unit === 'event' ? 'event' : 'time';
    axis.replaceChildren(af);

    rangeEl.textContent = 'showing ' + fmtTime(t0, (t1 - t0) / 10) + ' to ' + fmtTime(t1, (t1 - t0) / 10) +
      ' of ' + fmtTime(D.end) + ' · ' + n + ' operations, ' + D.lanes.length + ' lane' + (D.lanes.length === 1 ? '' : 's');
    stats.elements = count;
    stats.lastRenderMs = performance.now() - start;
    stats.renders++;
    if (stats.firstRenderMs < 0) stats.firstRenderMs = performance.now();
  }

  function setView(a, b) {
    const lim = Math.max(D.end, 1), pad = lim * 0.05 + 1;
    t0 = a; t1 = a + Math.max(b - a, 1e-3);
    if (!(t1 - t0 <= lim + 2 * pad)) { t0 = -pad; t1 = lim + pad; } // also infinite or NaN
    if (t0 < -pad) { t1 += -pad - t0; t0 = -pad; }
    if (t1 > lim + pad) { t0 -= t1 - lim - pad; t1 = lim + pad; }
    schedule();
  }
  function zoom(factor, x) {
    const c = x === undefined ? (t0 + t1) / 2 : T(x);
    setView(c - (c - t0) * factor, c + (t1 - c) * factor);
  }
  function spanOf(ids) {
    let a = Infinity, b = -Infinity;
    ids.forEach(function (i) { a = Math.min(a, D.call[i]); b = Math.max(b, D.ret[i] < 0 ? D.call[i] : D.ret[i]); });
    return [a, b];
  }
  // show opens the window on [a, b] with a margin, and scrolls the lanes
  // of ids into view.
  function show(a, b, ids) {
    const span = Math.max(b - a, 1), m = span * 0.2;
    setView(a - m, b + m);
    let ya = Infinity, yb = -Infinity;
    (ids || []).forEach(function (i) { const y = laneY[D.lane[i]]; if (y >= 0) { ya = Math.min(ya, y); yb = Math.max(yb, y + LANE_H); } });
    if (ya < Infinity) {
      const h = lanesDiv.clientHeight, top = lanesDiv.scrollTop;
      if (ya < top || yb > top + h) lanesDiv.scrollTop = Math.max(0, (yb - ya > h ? ya : (ya + yb - h) / 2) - GROUP_H);
    }
  }
  const focusIds = [];
  for (let i = 0; i < n; i++) if (isFocus(i)) focusIds.push(i);
  function showFocus() { show(D.focus[0], D.focus[1], focusIds); }

  function select(i, zoomTo) {
    selected = i;
    selEl.hidden = false;
    selEl.textContent = describe(i);
    const g = D.groups[groupOfOp(i)];
    if (g.collapsed) { g.collapsed = false; layout(); }
    if (zoomTo) {
      const c = spanOf([i]), w = t1 - t0;
      if (c[1] - c[0] > w * 0.8 || c[0] > t1 || c[1] < t0) show(c[0], c[1], [i]);
      else { setView((c[0] + c[1]) / 2 - w / 2, (c[0] + c[1]) / 2 + w / 2); show(t0 + w * 0.2 / 1.4, t1 - w * 0.2 / 1.4, [i]); }
      document.getElementById('timeline').scrollIntoView({ block: 'nearest' });
    }
    schedule();
  }

  // Input: wheel zooms at the pointer (horizontal wheel pans), dragging
  // pans both ways, clicks select.
  lanesDiv.addEventListener('wheel', function (e) {
    const r = plot.getBoundingClientRect();
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      setView(t0 + e.deltaX * (t1 - t0) / (W - GUTTER), t1 + e.deltaX * (t1 - t0) / (W - GUTTER));
    } else if (e.shiftKey) {
      return; // let the lanes scroll
    } else {
      zoom(Math.pow(1.0015, e.deltaMode === 1 ? e.deltaY * 30 : e.deltaY), e.clientX - r.left);
    }
    e.preventDefault();
  }, { passive: false });
  let drag = null;
  lanesDiv.addEventListener('pointerdown', function (e) {
    drag = { x: e.clientX, y: e.clientY, t0: t0, t1: t1, top: lanesDiv.scrollTop, moved: false };
    lanesDiv.setPointerCapture(e.pointerId);
  });
  lanesDiv.addEventListener('pointermove', function (e) {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    lanesDiv.classList.add('drag');
    const dt = dx * (drag.t1 - drag.t0) / (W - GUTTER);
    setView(drag.t0 - dt, drag.t1 - dt);
    lanesDiv.scrollTop = drag.top - dy;
  });
  lanesDiv.addEventListener('pointerup', function (e) {
    const d = drag;
    drag = null;
    lanesDiv.classList.remove('drag');
    if (!d || d.moved) return;
    const hit = document.elementsFromPoint(e.clientX, e.clientY);
    for (const h of hit) {
      const op = h.closest && h.closest('[data-op]'), gh = h.closest && h.closest('[data-group]');
      if (op) { select(+op.getAttribute('data-op'), false); return; }
      if (gh) { const g = D.groups[+gh.getAttribute('data-group')]; g.collapsed = !g.collapsed; layout(); schedule(); return; }
    }
  });
  lanesDiv.addEventListener('dblclick', function (e) { zoom(0.5, e.clientX - plot.getBoundingClientRect().left); });
  lanesDiv.addEventListener('scroll', schedule);
  window.addEventListener('resize', schedule);
  const acts = {
    focus: showFocus, fit: function () { setView(-Infinity, Infinity); },
    in: function () { zoom(0.5); }, out: function () { zoom(2); },
  };
  document.querySelectorAll('[data-act]').forEach(function (b) {
    b.addEventListener('click', function () { acts[b.getAttribute('data-act')](); });
  });
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = { '+': acts.in, '=': acts.in, '-': acts.out, '0': acts.fit, f: acts.focus, F: acts.focus }[e.key];
    const pan = { ArrowLeft: -0.2, ArrowRight: 0.2 }[e.key];
    if (k) k(); else if (pan) setView(t0 + pan * (t1 - t0), t1 + pan * (t1 - t0)); else return;
    e.preventDefault();
  });
  document.querySelectorAll('.details [data-op]').forEach(function (r) {
    r.addEventListener('click', function () { select(+r.getAttribute('data-op'), true); });
  });

  // For tests and the curious: the view's state and a way to drive it.
  window.quasarView = {
    stats: stats,
    view: function () { return [t0, t1]; },
    setView: setView, zoom: zoom, render: render, showFocus: showFocus, select: select,
  };
  if (n === 0) { rangeEl.textContent = 'the history is empty'; return; }
  layout();
  t0 = 0; t1 = Math.max(D.end, 1);
  W = Math.max(lanesDiv.clientWidth, GUTTER + 100);
  showFocus();
})();
