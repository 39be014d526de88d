/* global document, fetch, window */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const HOUR = 3_600_000;
  const number = new Intl.NumberFormat('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const show = (ore) => (ore === null ? '–' : number.format(ore));
  const UNITS = {
    spot: 'øre/kWh, spot price excl. VAT and tariffs',
    total: 'øre/kWh, all-in: spot, tariffs, charges, tax and VAT',
  };
  const PARTS = [
    ['spot', 'Spot'],
    ['grid_tariff', 'Grid tariff'],
    ['transmission_tariff', 'Transmission'],
    ['system_tariff', 'System tariff'],
    ['electricity_tax', 'Electricity tax'],
    ['supplier_markup', 'Supplier markup'],
    ['vat', 'VAT'],
  ];

  // The chosen price and area are remembered in this browser only; the page shows no household data.
  const store = (() => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  })();
  const remembered = (key, allowed, fallback) => {
    const v = store && store.getItem(key);
    return allowed.includes(v) ? v : fallback;
  };
  const state = {
    mode: remembered('satwatt.mode', ['spot', 'total'], 'spot'),
    area: remembered('satwatt.area', ['DK1', 'DK2'], 'DK1'),
  };
  let shown = null;

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

  /** One day of one area: spot hours and quarters, the all-in price of each hour, its cheapest 3 hours. */
  async function loadDay(date, area) {
    const hourly = await getJson('/api/elprice' + (date ? '?date=' + date : ''));
    const spots = hourly.items.filter((i) => i.price_area === area);
    const day = {
      date: hourly.date,
      complete: hourly.complete,
      expected: hourly.hours,
      hours: [],
      quarters: [],
    };
    if (spots.length === 0) return day;
    const q = '?area=' + area + '&date=' + hourly.date;
    const [quarters, consumer, cheapest] = await Promise.all([
      getJson('/api/prices' + q),
      getJson('/api/consumer-prices' + q),
      getJson('/api/cheapest' + q + '&hours=3').catch(() => null),
    ]);
    const allIn = new Map(consumer.items.map((i) => [i.time_dk, i]));
    day.hours = spots.map((s) => {
      const parts = allIn.get(s.time_dk) || null;
      return {
        time_dk: s.time_dk,
        spot: s.price_dkk / 10, // DKK/MWh ÷ 10 = øre/kWh
        total: parts && parts.total !== null ? parts.total * 100 : null, // DKK/kWh × 100
        parts,
      };
    });
    day.quarters = quarters.items;
    day.cheapest = cheapest;
    return day;
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

  const value = (h) => (state.mode === 'spot' ? h.spot : h.total);
  const inWindow = (w, t) => w && t >= Date.parse(w.start_dk) && t < Date.parse(w.end_dk);

  function renderDay(section, title, day, missing) {
    section.replaceChildren(el('h2', {}, title + (day ? ' · ' + day.date : '')));
    if (!day || day.hours.length === 0) {
      section.append(el('p', { class: 'notice', 'data-missing': '' }, missing));
      return null;
    }
    if (!day.complete)
      section.append(
        el(
          'p',
          { class: 'notice' },
          `Incomplete: ${day.hours.length} of ${day.expected} hours published so far.`,
        ),
      );
    if (state.mode === 'total' && day.hours.some((h) => h.total === null))
      section.append(
        el(
          'p',
          { class: 'notice' },
          'A tariff or charge is not published for some hours; their all-in price is unknown.',
        ),
      );
    const w = day.cheapest;
    const hourLabel = labeller(day.hours);
    if (w)
      section.append(
        el(
          'p',
          { class: 'window', 'data-window-summary': '' },
          `Cheapest 3 hours: ${w.start_dk.slice(11, 16)}–${w.end_dk.slice(11, 16)}, ` +
            `${show(w.average_dkk_kwh * 100)} øre/kWh ` +
            (w.basis === 'total' ? 'on average, all-in' : 'spot on average (charges missing)'),
        ),
      );
    const values = day.hours.map(value).filter((v) => v !== null);
    const sorted = values.sort((a, b) => a - b);
    const low = sorted[Math.floor(sorted.length / 4)];
    const high = sorted[Math.floor((sorted.length * 3) / 4)];
    const quarterLabel = labeller(day.quarters);
    const now = Date.now();
    let current = null;
    const grid = el('div', { class: 'cards' });
    for (const h of day.hours) {
      const start = Date.parse(h.time_dk);
      const v = value(h);
      const level = v === null ? '' : v <= low ? ' low' : v >= high ? ' high' : '';
      const isNow = now >= start && now < start + HOUR;
      const cheap = inWindow(w, start);
      const attrs = { class: 'hour' + level, open: '', 'data-time': h.time_dk };
      if (cheap) {
        attrs.class += ' cheap';
        attrs['data-window'] = '';
      }
      if (isNow) {
        attrs.class += ' now';
        attrs['aria-current'] = 'time';
      }
      const rows =
        state.mode === 'spot'
          ? day.quarters
              .filter((q) => {
                const t = Date.parse(q.time_dk);
                return t >= start && t < start + HOUR;
              })
              .map((q) =>
                el(
                  'li',
                  {},
                  el('span', {}, quarterLabel(q)),
                  el('span', { class: 'num' }, show(q.price_dkk / 10)),
                ),
              )
          : PARTS.map(([key, name]) =>
              el(
                'li',
                {},
                el('span', {}, name),
                el(
                  'span',
                  { class: 'num' },
                  show(h.parts && h.parts[key] !== null ? h.parts[key] * 100 : null),
                ),
              ),
            );
      const card = el(
        'details',
        attrs,
        el(
          'summary',
          {},
          el(
            'span',
            {},
            hourLabel(h),
            ...(isNow ? [el('span', { class: 'tag' }, 'now')] : []),
            ...(cheap ? [el('span', { class: 'tag cheap' }, 'cheap')] : []),
          ),
          el('span', { class: 'num avg' }, show(v)),
        ),
        el('ul', { class: 'quarters' }, ...rows),
      );
      if (isNow) current = card;
      grid.append(card);
    }
    section.append(grid);
    return current;
  }

  function renderChart(figure, days) {
    const series = days
      .filter((d) => d && d.hours.length)
      .map((d) => ({
        date: d.date,
        window: d.cheapest,
        hours: d.hours,
        points:
          state.mode === 'spot' && d.quarters.length
            ? d.quarters.map((p) => ({
                t: Date.parse(p.time_dk),
                minutes: p.resolution_minutes,
                v: p.price_dkk / 10,
              }))
            : d.hours.map((h) => ({ t: Date.parse(h.time_dk), minutes: 60, v: value(h) })),
      }));
    const all = series.flatMap((s) => s.points).filter((p) => p.v !== null);
    figure.replaceChildren();
    if (all.length === 0) return;
    const W = 800,
      H = 280,
      L = 52,
      R = 8,
      T = 28,
      B = 30;
    const t0 = Math.min(...series.map((s) => s.points[0].t));
    const t1 = Math.max(...series.flatMap((s) => s.points.map((p) => p.t + p.minutes * 60_000)));
    const lo = Math.min(0, ...all.map((p) => p.v));
    const hi = Math.max(1, ...all.map((p) => p.v));
    const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const y = (v) => T + ((hi - v) / (hi - lo)) * (H - T - B);
    const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
    root.append(svg('title', {}, `${state.area} ${UNITS[state.mode]}`));
    const colours = ['#2f6fdb', '#d9822b'];
    for (const s of series)
      if (s.window)
        root.append(
          svg('rect', {
            x: x(Date.parse(s.window.start_dk)),
            width: x(Date.parse(s.window.end_dk)) - x(Date.parse(s.window.start_dk)),
            y: T,
            height: H - T - B,
            fill: '#2e9d5b',
            opacity: 0.18,
            'data-window': s.date,
          }),
        );
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
    series.forEach((s, i) => {
      let d = '';
      let pen = 'M';
      for (const p of s.points) {
        if (p.v === null) {
          pen = 'M';
          continue;
        }
        const x0 = x(p.t),
          x1 = x(p.t + p.minutes * 60_000);
        d += pen + x0.toFixed(1) + ' ' + y(p.v).toFixed(1) + 'L' + x1.toFixed(1) + ' ' + y(p.v).toFixed(1);
        pen = 'L';
      }
      root.append(
        svg('path', { d, fill: 'none', stroke: colours[i % 2], 'stroke-width': 2, 'data-date': s.date }),
      );
      const sx = x(s.points[0].t);
      root.append(
        svg('line', { x1: sx, x2: sx, y1: T, y2: H - B, stroke: '#9aa3b2', 'stroke-dasharray': '4 3' }),
      );
      root.append(svg('text', { x: sx + 4, y: 18, 'font-size': 16, fill: colours[i % 2] }, s.date));
      // The wall-clock hour every three hours along the axis.
      for (const h of s.hours) {
        const hh = Number(h.time_dk.slice(11, 13));
        if (hh % 3 !== 0) continue;
        const hx = x(Date.parse(h.time_dk));
        root.append(svg('line', { x1: hx, x2: hx, y1: H - B, y2: H - B + 5, stroke: '#9aa3b2' }));
        root.append(
          svg(
            'text',
            {
              x: hx,
              y: H - 8,
              'text-anchor': 'middle',
              'font-size': 14,
              fill: '#5b6475',
              'data-hour-label': '',
            },
            h.time_dk.slice(11, 13),
          ),
        );
      }
    });
    const now = Date.now();
    if (now >= t0 && now < t1)
      root.append(
        svg('line', {
          x1: x(now),
          x2: x(now),
          y1: T,
          y2: H - B,
          stroke: '#1d2430',
          'stroke-width': 2,
          'data-now': '',
        }),
      );
    figure.append(root);
  }

  function render() {
    for (const b of document.querySelectorAll('[data-mode]'))
      b.setAttribute('aria-pressed', String(b.dataset.mode === state.mode));
    for (const b of document.querySelectorAll('[data-area]'))
      b.setAttribute('aria-pressed', String(b.dataset.area === state.area));
    $('unit').textContent = `${state.area}, ${UNITS[state.mode]}`;
    document.title = `satwatt · electricity prices ${state.area}`;
    if (!shown) return;
    const { today, tomorrow, tomorrowDate, tomorrowError } = shown;
    renderChart($('chart'), [today, tomorrow]);
    const current = renderDay($('today'), 'Today', today, 'No prices stored for today yet.');
    renderDay(
      $('tomorrow'),
      'Tomorrow',
      tomorrow || { date: tomorrowDate, hours: [], quarters: [] },
      tomorrowError
        ? `Tomorrow's prices could not be loaded (${tomorrowError}).`
        : "Tomorrow's prices are not published yet. They usually appear from about 13:00 Danish time.",
    );
    if (current) current.scrollIntoView({ block: 'center' });
  }

  let loading = false;
  async function load() {
    if (loading) return;
    loading = true;
    const button = $('refresh');
    button.disabled = true;
    $('status').textContent = 'Loading…';
    try {
      const area = state.area;
      const today = await loadDay(null, area);
      const tomorrowDate = nextDate(today.date);
      let tomorrow = null;
      let tomorrowError = null;
      try {
        tomorrow = await loadDay(tomorrowDate, area);
      } catch (e) {
        tomorrowError = e.message;
      }
      shown = { today, tomorrow, tomorrowDate, tomorrowError };
      render();
      $('status').textContent =
        'Updated ' + new Date().toLocaleTimeString('da-DK', { timeZone: 'Europe/Copenhagen' });
    } catch (e) {
      $('status').textContent = 'Could not load prices: ' + e.message;
    } finally {
      loading = false;
      button.disabled = false;
      document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
    }
  }

  for (const b of document.querySelectorAll('[data-mode]'))
    b.addEventListener('click', () => {
      state.mode = b.dataset.mode;
      if (store) store.setItem('satwatt.mode', state.mode);
      render();
    });
  for (const b of document.querySelectorAll('[data-area]'))
    b.addEventListener('click', () => {
      if (state.area === b.dataset.area) return;
      state.area = b.dataset.area;
      if (store) store.setItem('satwatt.area', state.area);
      render();
      void load();
    });
  $('refresh').addEventListener('click', () => void load());
  render();
  void load();
})();
