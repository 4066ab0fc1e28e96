// Idem dashboard: plain DOM, no framework, no build step. Every value from the API is inserted as text
// (textContent / text nodes, never innerHTML), so schedule metadata, errors and response bodies cannot
// become markup. The API key lives in sessionStorage: it is a full-power secret, so it goes when the tab
// closes; it is sent only in the Authorization header, never in a URL. Views are addressed by the URL's
// fragment (#/schedules/sch_…, #/deliveries/dlv_…, #/messages/msg_…), so a link to one can be shared; the fragment
// never holds the key. This file is the core (API calls, times, key, counters, routing); dashboard-schedules.js,
// dashboard-dead-letter.js, dashboard-create.js, dashboard-sources.js, dashboard-fanout.js (applications, endpoints,
// event types) and dashboard-messages.js hold the views. All seven are classic scripts sharing one global scope, run in
// order (defer) before DOMContentLoaded wires them up.
'use strict';
const KEY_ITEM = 'idem.apiKey';
const COUNTERS_EVERY_MS = 3000;
const CHART_MINUTES = 10;
const PAGE = 20;
const SCAN_LIMIT = 100;
// a filter the API cannot apply is applied here, over at most this many list pages per screen
const SCAN_PAGES = 20;
const SVG = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);
let apiKey = null;
let countersTimer = null;
const samples = [];
// the notice for the view being navigated to
let flash = null;
// schedules by id, as last read (the dead-letter queue shows each delivery's endpoint from its schedule)
const scheduleCache = new Map();

class ApiError extends Error {
  constructor(status, error) {
    super((error && error.message) || ('HTTP ' + status));
    this.status = status;
    this.code = error && error.code;
    this.param = error && error.param;
    this.requestId = error && error.request_id;
  }
}

/** Builds an element; children that are not nodes become text nodes. */
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'class') e.className = v;
    else if (k === 'onclick') e.addEventListener('click', v);
    else if (k === 'data') Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

function statusBadge(status) {
  return el('span', { class: 'status status-' + String(status).replace(/[^a-z_]/g, '') }, status);
}

function text(v) {
  return v === null || v === undefined ? '—' : String(v);
}

function json(v) {
  return v === null || v === undefined ? '—' : JSON.stringify(v);
}

// ---- times: relative and in the viewer's zone, the UTC instant on hover ----

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
const pad = (n, w) => String(n).padStart(w || 2, '0');

function localText(d) {
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':' + pad(d.getMinutes())
    + ':' + pad(d.getSeconds());
}

function relative(ms) {
  const abs = Math.abs(ms);
  let s;
  if (abs < 45000) s = Math.round(abs / 1000) + ' s';
  else if (abs < 90 * 60000) s = Math.round(abs / 60000) + ' min';
  else if (abs < 36 * 3600000) s = Math.round(abs / 3600000) + ' h';
  else if (abs < 45 * 86400000) s = Math.round(abs / 86400000) + ' days';
  else if (abs < 550 * 86400000) s = Math.round(abs / (30 * 86400000)) + ' months';
  else s = Math.round(abs / (365.25 * 86400000)) + ' years';
  if (abs < 1500) return 'now';
  return ms > 0 ? 'in ' + s : s + ' ago';
}

/** A <time> showing "in 5 min · 2026-03-10 18:00:00" in the viewer's zone; its title is the UTC instant. */
function timeEl(iso, cls) {
  if (!iso) return el('span', { class: cls }, '—');
  const t = el('time', { class: 'when ' + (cls || ''), datetime: iso, title: iso + ' (UTC)' });
  renderTime(t);
  return t;
}

function renderTime(t) {
  const d = new Date(t.getAttribute('datetime'));
  t.replaceChildren(el('span', { class: 'rel' }, relative(d.getTime() - Date.now())), ' · ', el('span', { class: 'local' }, localText(d)));
}

/** "2026-03-10 18:00:00 Europe/Paris": an instant in a schedule's own zone, as the create form's preview shows it. */
function zoneText(iso, zone) {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit',
    day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return p.year + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute + ':' + p.second + ' ' + zone;
}

/** timeEl, then the same instant in the schedule's zone when it has one (recurring schedules). */
function timeInZones(iso, zone, cls) {
  if (!iso || !zone) return timeEl(iso, cls);
  return el('span', {}, timeEl(iso, cls), el('span', { class: 'rule-zone' }, ' · ' + zoneText(iso, zone)));
}

function refreshTimes() {
  for (const t of document.querySelectorAll('time.when')) renderTime(t);
}

// ---- API ----

async function api(method, path, body, idempotencyKey) {
  const headers = { Authorization: 'Bearer ' + apiKey, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  let parsed = null;
  try {
    parsed = await res.json();
  } catch (notJson) {
    parsed = null;
  }
  if (!res.ok) throw new ApiError(res.status, parsed && parsed.error);
  return parsed;
}

function newKey() {
  return 'dash_' + (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random());
}

function describe(e) {
  if (!(e instanceof ApiError)) return 'Cannot reach the Idem server: ' + e.message;
  let s = e.message;
  if (e.code) s += ' (' + e.code + ')';
  if (e.requestId) s += ' — request ' + e.requestId;
  return s;
}

/** An error about a field: "param: message", unless the API's message already starts with the field's name. */
function fieldMessage(param, msg) {
  return !param || String(msg).startsWith(param) ? msg : param + ': ' + msg;
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function message(id, msg) {
  $(id).textContent = msg || '';
  show(id, !!msg);
}

/** Runs an API action; a refused key sends the user back to the key form, any other error shows in the banner. */
async function guarded(work) {
  try {
    message('error', null);
    return await work();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      forgetKey('The API key was refused: ' + describe(e));
    } else {
      message('error', describe(e));
    }
    return undefined;
  }
}

// ---- key ----

async function submitKey(event) {
  event.preventDefault();
  const candidate = $('api-key').value.trim();
  if (!candidate) return;
  apiKey = candidate;
  $('key-submit').disabled = true;
  try {
    await api('GET', '/v1/stats');
    sessionStorage.setItem(KEY_ITEM, candidate);
    $('api-key').value = '';
    start();
  } catch (e) {
    apiKey = null;
    message('login-error', e instanceof ApiError && e.status === 401 ? 'The API key was refused: ' + describe(e) : describe(e));
  } finally {
    $('key-submit').disabled = false;
  }
}

function forgetKey(why) {
  sessionStorage.removeItem(KEY_ITEM);
  apiKey = null;
  if (countersTimer) clearInterval(countersTimer);
  countersTimer = null;
  samples.length = 0;
  show('app', false);
  show('forget-key', false);
  show('login', true);
  $('who').textContent = '';
  $('zone').textContent = '';
  message('login-error', why || null);
}

function start() {
  show('login', false);
  show('app', true);
  show('forget-key', true);
  message('login-error', null);
  $('who').textContent = (apiKey.startsWith('sk_live_') ? 'live' : 'test') + ' mode · ' + apiKey.slice(0, 12) + '…';
  $('zone').textContent = 'times in ' + ZONE;
  refreshCounters();
  countersTimer = setInterval(() => {
    refreshCounters();
    refreshTimes();
  }, COUNTERS_EVERY_MS);
  route();
}

// ---- counters and their chart ----

function formatLag(ms) {
  if (ms < 1000) return ms + ' ms';
  if (ms < 120000) return (ms / 1000).toFixed(1) + ' s';
  return Math.round(ms / 60000) + ' min';
}

// a count the API stops at its limit (GET /v1/stats): "10,000+" rather than a number that looks exact
function counted(n, capped) {
  return capped ? n.toLocaleString('en-US') + '+' : String(n);
}

async function refreshCounters() {
  await guarded(async () => {
    const s = await api('GET', '/v1/stats');
    $('counter-rate').textContent = s.deliveries_per_second.toFixed(2);
    $('counter-finished').textContent = String(s.succeeded + s.died);
    $('counter-lag').textContent = formatLag(s.lag_ms);
    $('counter-queued').textContent = counted(s.queue_depth, s.queue_depth_capped);
    $('counter-died').textContent = String(s.died);
    $('counter-retrying').textContent = counted(s.retrying, s.retrying_capped);
    $('counter-dead').textContent = counted(s.dead, s.dead_capped);
    $('counter-in-flight').textContent = s.attempts_in_flight === undefined ? '–' : String(s.attempts_in_flight);
    for (const w of document.querySelectorAll('.window')) w.textContent = String(s.window_seconds);
    $('counters-as-of').replaceChildren('as of ', timeEl(s.as_of));
    samples.push({ t: Date.parse(s.as_of), rate: s.deliveries_per_second, died: s.died / s.window_seconds });
    const oldest = Date.parse(s.as_of) - CHART_MINUTES * 60000;
    while (samples.length && samples[0].t < oldest) samples.shift();
    drawChart();
  });
}

/** The samples this page has taken (one per refresh, the last ten minutes) as two lines on one time axis. */
function drawChart() {
  const svg = $('chart');
  const w = 300;
  const h = 80;
  const top = 6;
  const last = samples.length ? samples[samples.length - 1].t : Date.now();
  // the axis spans the samples taken (at least a minute, at most CHART_MINUTES): a page just opened is not a flat line
  const span = Math.max(60000, samples.length ? last - samples[0].t : 0);
  const first = last - span;
  const peak = Math.max(0.01, ...samples.map((p) => Math.max(p.rate, p.died)));
  const x = (t) => ((t - first) / span) * w;
  const y = (v) => h - 2 - (v / peak) * (h - top - 2);
  const line = (cls, value) => {
    const l = document.createElementNS(SVG, 'polyline');
    l.setAttribute('class', cls);
    l.setAttribute('fill', 'none');
    l.setAttribute('points', samples.map((p) => x(p.t).toFixed(1) + ',' + y(value(p)).toFixed(1)).join(' '));
    return l;
  };
  const axis = document.createElementNS(SVG, 'line');
  axis.setAttribute('class', 'axis');
  for (const [k, v] of Object.entries({ x1: 0, y1: h - 1, x2: w, y2: h - 1 })) axis.setAttribute(k, String(v));
  const dot = document.createElementNS(SVG, 'circle');
  if (samples.length) {
    const p = samples[samples.length - 1];
    for (const [k, v] of Object.entries({ cx: x(p.t), cy: y(p.rate), r: 2.5, class: 'latest' })) dot.setAttribute(k, String(v));
  }
  svg.replaceChildren(axis, line('series-rate', (p) => p.rate), line('series-died', (p) => p.died), dot);
  svg.dataset.samples = String(samples.length);
  $('chart-span').textContent = String(Math.max(1, Math.round(span / 60000)));
  $('chart-peak').textContent = peak.toFixed(2);
}

// ---- routing ----

const VIEWS = ['schedules-view', 'schedule-view', 'delivery-view', 'dlq-view', 'create-view', 'sources-view', 'source-view',
  'applications-view', 'application-view', 'endpoints-view', 'endpoint-view', 'event-types-view', 'messages-view', 'message-view'];
const TABS = ['tab-schedules', 'tab-dlq', 'tab-sources', 'tab-applications', 'tab-endpoints', 'tab-event-types', 'tab-messages',
  'tab-new'];

function selectView(view, tab) {
  for (const v of VIEWS) show(v, v === view);
  for (const t of TABS) {
    $(t).classList.toggle('selected', t === tab);
    if (t === tab) $(t).setAttribute('aria-current', 'page');
    else $(t).removeAttribute('aria-current');
  }
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query || '') };
}

/** Navigates to a view; `notice` shows on the view navigated to (route() clears the previous view's). */
function go(hash, notice) {
  flash = notice || null;
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  if (!apiKey) return;
  message('notice', flash);
  flash = null;
  const { parts, params } = parseHash();
  if (parts[0] === 'schedules' && parts[1]) return openSchedule(parts[1]);
  if (parts[0] === 'deliveries' && parts[1]) return openDelivery(parts[1]);
  if (parts[0] === 'dead-letter') return openDlq(params);
  if (parts[0] === 'new') return openCreate();
  if (parts[0] === 'sources') return parts[1] ? openSource(parts[1]) : openSources();
  if (parts[0] === 'applications') return parts[1] ? openApplication(parts[1]) : openApplications();
  if (parts[0] === 'endpoints') return parts[1] ? openEndpoint(parts[1]) : openEndpoints(params);
  if (parts[0] === 'event-types') return openEventTypes();
  if (parts[0] === 'messages') return parts[1] ? openMessage(parts[1]) : openMessages(params);
  return openSchedules(params);
}
document.addEventListener('DOMContentLoaded', () => {
  $('key-form').addEventListener('submit', submitKey);
  $('forget-key').addEventListener('click', () => forgetKey(null));
  window.addEventListener('hashchange', route);
  $('schedule-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    go(filterHash('#/schedules', scheduleFilter()));
  });
  $('schedule-status').addEventListener('change', () => go(filterHash('#/schedules', scheduleFilter())));
  $('schedules-refresh').addEventListener('click', () => loadSchedules());
  $('schedules-next').addEventListener('click', () => {
    if (!schedulesPaging.next) return;
    schedulesPaging.cursors.push(schedulesPaging.next);
    loadSchedules();
  });
  $('schedules-prev').addEventListener('click', () => {
    if (schedulesPaging.cursors.length > 1) schedulesPaging.cursors.pop();
    loadSchedules();
  });
  $('deliveries-more').addEventListener('click', () => guarded(() => loadDeliveries(true)));
  $('dlq-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    go(filterHash('#/dead-letter', dlqFilterFromForm()));
  });
  $('dlq-refresh').addEventListener('click', () => loadDlq(false));
  $('dlq-more').addEventListener('click', () => loadDlq(true));
  $('dlq-select-all').addEventListener('change', () => {
    // read once: each row's change updates the select-all box as it goes
    const all = $('dlq-select-all').checked;
    for (const box of document.querySelectorAll('#dlq tbody input.select')) {
      box.checked = all;
      box.dispatchEvent(new Event('change'));
    }
  });
  $('dlq-replay-selected').addEventListener('click', replaySelected);
  $('dlq-replay-all').addEventListener('click', () => show('dlq-confirm', true));
  $('dlq-confirm-no').addEventListener('click', () => show('dlq-confirm', false));
  $('dlq-confirm-yes').addEventListener('click', replayAllMatching);
  $('endpoints-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    go(filterHash('#/endpoints', { application: $('endpoints-application').value.trim() }));
  });
  $('endpoints-refresh').addEventListener('click', () => loadEndpoints());
  $('messages-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    go(filterHash('#/messages', messageFilterFromForm()));
  });
  $('messages-more').addEventListener('click', () => loadMessages(true));
  $('create-form').addEventListener('submit', submitCreate);
  $('create-kind').addEventListener('change', kindChanged);
  for (const id of ['create-when', 'create-timezone', 'create-dtstart']) $(id).addEventListener('input', schedulePreview);
  apiKey = sessionStorage.getItem(KEY_ITEM);
  if (apiKey) start();
});
