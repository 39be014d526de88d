/* global document, fetch */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const number = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  // DKK/MWh ÷ 10 = øre/kWh
  const ore = (dkkPerMwh) => dkkPerMwh / 10;
  const show = (dkkPerMwh) => number.format(ore(dkkPerMwh));

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    node.append(...children);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function nextDate(date) {
    const t = new Date(date + 'T00:00:00Z');
    t.setUTCDate(t.getUTCDate() + 1);
    return t.toISOString().slice(0, 10);
  }

  async function getJson(url) {
    const res = await fetch(url, { cache: 'no-store' });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.detail || 'HTTP ' + res.status);
    return body;
  }

  async function loadDay(date) {
    const hourly = await getJson('/api/elprice' + (date ? '?date=' + date : ''));
    const quarters = await getJson('/api/prices?area=DK1&date=' + hourly.date);
    return {
      date: hourly.date,
      complete: hourly.complete,
      expected: hourly.hours,
      hours: hourly.items.filter((i) => i.price_area === 'DK1'),
      quarters: quarters.items,
    };
  }

  /** "02:00", and on the autumn change day "02:00 +02:00" / "02:00 +01:00" for the two 02:00 hours. */
  function labeller(items) {
    const seen = new Map();
    for (const i of items) seen.set(i.time_dk.slice(11, 16), (seen.get(i.time_dk.slice(11, 16)) || 0) + 1);
    return (i) => {
      const hhmm = i.time_dk.slice(11, 16);
      return seen.get(hhmm) > 1 ? hhmm + ' ' + i.time_dk.slice(19) : hhmm;
    };
  }

  function renderDay(section, title, day, missing) {
    section.replaceChildren(el('h2', {}, title + (day ? ' · ' + day.date : '')));
    if (!day || day.hours.length === 0) {
      section.append(el('p', { class: 'notice', 'data-missing': '' }, missing));
      return;
    }
    if (!day.complete)
      section.append(
        el(
          'p',
          { class: 'notice' },
          `Incomplete: ${day.hours.length} of ${day.expected} hours published so far.`,
        ),
      );
    const sorted = day.hours.map((h) => h.price_dkk).sort((a, b) => a - b);
    const low = sorted[Math.floor(sorted.length / 4)];
    const high = sorted[Math.floor((sorted.length * 3) / 4)];
    const hourLabel = labeller(day.hours);
    const quarterLabel = labeller(day.quarters);
    const grid = el('div', { class: 'cards' });
    for (const h of day.hours) {
      const start = Date.parse(h.time_dk);
      const quarters = day.quarters.filter((q) => {
        const t = Date.parse(q.time_dk);
        return t >= start && t < start + 3_600_000;
      });
      const level = h.price_dkk <= low ? ' low' : h.price_dkk >= high ? ' high' : '';
      grid.append(
        el(
          'details',
          { class: 'hour' + level, open: '', 'data-time': h.time_dk },
          el(
            'summary',
            {},
            el('span', {}, hourLabel(h)),
            el('span', { class: 'num avg' }, show(h.price_dkk)),
          ),
          el(
            'ul',
            { class: 'quarters' },
            ...quarters.map((q) =>
              el('li', {}, el('span', {}, quarterLabel(q)), el('span', { class: 'num' }, show(q.price_dkk))),
            ),
          ),
        ),
      );
    }
    section.append(grid);
  }

  function renderChart(figure, days) {
    const series = days
      .filter((d) => d && d.hours.length)
      .map((d) => ({
        date: d.date,
        points: (d.quarters.length ? d.quarters : d.hours).map((p) => ({
          t: Date.parse(p.time_dk),
          minutes: p.resolution_minutes || 60,
          v: ore(p.price_dkk),
        })),
      }));
    const all = series.flatMap((s) => s.points);
    figure.replaceChildren();
    if (all.length === 0) return;
    const W = 800,
      H = 260,
      L = 52,
      R = 8,
      T = 10,
      B = 32;
    const t0 = all[0].t;
    const t1 = Math.max(...all.map((p) => p.t + p.minutes * 60_000));
    const lo = Math.min(0, ...all.map((p) => p.v));
    const hi = Math.max(1, ...all.map((p) => p.v));
    const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const y = (v) => T + ((hi - v) / (hi - lo)) * (H - T - B);
    const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
    root.append(svg('title', {}, 'DK1 day-ahead price, øre/kWh'));
    for (let i = 0; i <= 4; i++) {
      const v = lo + ((hi - lo) * i) / 4;
      root.append(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e3e6eb' }));
      root.append(
        svg(
          'text',
          { x: L - 4, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 16, fill: '#5b6475' },
          v.toFixed(0),
        ),
      );
    }
    root.append(svg('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: '#9aa3b2' }));
    const colours = ['#2f6fdb', '#d9822b'];
    series.forEach((s, i) => {
      let d = '';
      for (const p of s.points) {
        const x0 = x(p.t),
          x1 = x(p.t + p.minutes * 60_000);
        d +=
          (d ? 'L' : 'M') +
          x0.toFixed(1) +
          ' ' +
          y(p.v).toFixed(1) +
          'L' +
          x1.toFixed(1) +
          ' ' +
          y(p.v).toFixed(1);
      }
      root.append(
        svg('path', { d, fill: 'none', stroke: colours[i % 2], 'stroke-width': 2, 'data-date': s.date }),
      );
      const sx = x(s.points[0].t);
      root.append(
        svg('line', { x1: sx, x2: sx, y1: T, y2: H - B, stroke: '#9aa3b2', 'stroke-dasharray': '4 3' }),
      );
      root.append(svg('text', { x: sx + 4, y: H - 8, 'font-size': 18, fill: colours[i % 2] }, s.date));
    });
    figure.append(root);
  }

  let loading = false;
  async function load() {
    if (loading) return;
    loading = true;
    const button = $('refresh');
    button.disabled = true;
    $('status').textContent = 'Loading…';
    try {
      const today = await loadDay(null);
      const tomorrowDate = nextDate(today.date);
      let tomorrow = null;
      let tomorrowError = null;
      try {
        tomorrow = await loadDay(tomorrowDate);
      } catch (e) {
        tomorrowError = e.message;
      }
      renderChart($('chart'), [today, tomorrow]);
      renderDay($('today'), 'Today', today, 'No prices stored for today yet.');
      renderDay(
        $('tomorrow'),
        'Tomorrow',
        tomorrow || { date: tomorrowDate, hours: [], quarters: [] },
        tomorrowError
          ? `Tomorrow's prices could not be loaded (${tomorrowError}).`
          : "Tomorrow's prices are not published yet. They usually appear from about 13:00 Danish time.",
      );
      $('status').textContent = 'Updated ' + new Date().toLocaleTimeString('da-DK');
    } catch (e) {
      $('status').textContent = 'Could not load prices: ' + e.message;
    } finally {
      loading = false;
      button.disabled = false;
      document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
    }
  }

  $('refresh').addEventListener('click', () => void load());
  void load();
})();
