// Idem dashboard: plain DOM, no framework, no build step. Every value from the API is inserted as text
// (textContent / text nodes, never innerHTML), so schedule metadata, errors and response bodies cannot
// become markup. The API key lives in sessionStorage: it is a full-power secret, so it goes when the tab
// closes; it is sent only in the Authorization header, never in a URL. Views are addressed by the URL's
// fragment (#/schedules/sch_…, #/deliveries/dlv_…), so a link to one can be shared; the fragment never
// holds the key.
'use strict';

const KEY_ITEM = 'idem.apiKey';
const COUNTERS_EVERY_MS = 3000;
const CHART_MINUTES = 10;
const PAGE = 20;
const SCAN_LIMIT = 100;
// a filter the API cannot apply is applied here, over at most this many list pages per screen
const SCAN_PAGES = 20;
const PREVIEW_COUNT = 5;
const SVG = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);
let apiKey = null;
let countersTimer = null;
const samples = [];
const schedulesPaging = { cursors: [null], next: null };
let detail = { id: null, lastDeliveryId: null };
let dlq = { last: null, hasMore: false, filter: {} };
const selected = new Set();
const scheduleCache = new Map();
let previewTimer = null;
let previewSeq = 0;

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
  message('login-error', why || null);
}

function start() {
  show('login', false);
  show('app', true);
  show('forget-key', true);
  message('login-error', null);
  $('who').textContent = (apiKey.startsWith('sk_live_') ? 'live' : 'test') + ' mode · ' + apiKey.slice(0, 12) + '…';
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

async function refreshCounters() {
  await guarded(async () => {
    const s = await api('GET', '/v1/stats');
    $('counter-rate').textContent = s.deliveries_per_second.toFixed(2);
    $('counter-finished').textContent = String(s.succeeded + s.died);
    $('counter-lag').textContent = formatLag(s.lag_ms);
    $('counter-died').textContent = String(s.died);
    $('counter-retrying').textContent = String(s.retrying);
    $('counter-dead').textContent = String(s.dead);
    $('counter-in-flight').textContent = s.attempts_in_flight === undefined ? '–' : String(s.attempts_in_flight);
    for (const w of document.querySelectorAll('.window')) w.textContent = String(s.window_seconds);
    $('counters-as-of').replaceChildren('as of ', timeEl(s.as_of));
    samples.push({ t: Date.parse(s.as_of), rate: s.deliveries_per_second, died: s.died * 60 / s.window_seconds });
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
  const peak = Math.max(0.01, ...samples.map((p) => Math.max(p.rate, p.died / 60)));
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
  svg.replaceChildren(axis, line('series-rate', (p) => p.rate), line('series-died', (p) => p.died / 60), dot);
  svg.dataset.samples = String(samples.length);
  $('chart-span').textContent = String(Math.max(1, Math.round(span / 60000)));
  $('chart-peak').textContent = peak.toFixed(2);
}

// ---- routing ----

const VIEWS = ['schedules-view', 'schedule-view', 'delivery-view', 'dlq-view', 'create-view'];

function selectView(view, tab) {
  for (const v of VIEWS) show(v, v === view);
  for (const t of ['tab-schedules', 'tab-dlq', 'tab-new']) $(t).classList.toggle('selected', t === tab);
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query || '') };
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  if (!apiKey) return;
  message('notice', null);
  const { parts, params } = parseHash();
  if (parts[0] === 'schedules' && parts[1]) return openSchedule(parts[1]);
  if (parts[0] === 'deliveries' && parts[1]) return openDelivery(parts[1]);
  if (parts[0] === 'dead-letter') return openDlq(params);
  if (parts[0] === 'new') return openCreate();
  return openSchedules(params);
}

// ---- schedules ----

function scheduleFilter() {
  return { status: $('schedule-status').value, endpoint: $('schedule-endpoint').value.trim(), event_type: $('schedule-event-type').value.trim() };
}

function filterHash(base, filter) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v) p.set(k, v);
  const q = p.toString();
  return base + (q ? '?' + q : '');
}

function openSchedules(params) {
  selectView('schedules-view', 'tab-schedules');
  $('schedule-status').value = params.get('status') || '';
  $('schedule-endpoint').value = params.get('endpoint') || '';
  $('schedule-event-type').value = params.get('event_type') || '';
  schedulesPaging.cursors = [null];
  return loadSchedules();
}

function matchesSchedule(s, f) {
  if (f.endpoint && !s.endpoint.toLowerCase().includes(f.endpoint.toLowerCase())) return false;
  if (f.event_type && (s.event_type || '').toLowerCase() !== f.event_type.toLowerCase()) return false;
  return true;
}

/**
 * One screen of schedules. The API filters by status; endpoint and event type are applied here, reading list
 * pages until a screen is full (or SCAN_PAGES pages were read, then "Next page" reads on).
 */
async function loadSchedules() {
  await guarded(async () => {
    const f = scheduleFilter();
    const clientSide = !!(f.endpoint || f.event_type);
    let cursor = schedulesPaging.cursors[schedulesPaging.cursors.length - 1];
    const shown = [];
    let more = false;
    let scanned = 0;
    for (let pages = 0; pages < (clientSide ? SCAN_PAGES : 1); pages++) {
      const params = new URLSearchParams({ limit: String(clientSide ? SCAN_LIMIT : PAGE) });
      if (f.status) params.set('status', f.status);
      if (cursor) params.set('starting_after', cursor);
      const page = await api('GET', '/v1/schedules?' + params);
      let i = 0;
      for (; i < page.data.length && shown.length < PAGE; i++) {
        scanned++;
        cursor = page.data[i].id;
        if (matchesSchedule(page.data[i], f)) shown.push(page.data[i]);
      }
      more = i < page.data.length || page.has_more;
      if (!more || shown.length >= PAGE) break;
    }
    $('schedules').tBodies[0].replaceChildren(...shown.map(scheduleRow));
    show('schedules-empty', shown.length === 0);
    message('schedules-scanned', clientSide ? shown.length + ' of ' + scanned + ' schedules read match the endpoint and event type filter'
      + (more ? '; "Next page" reads on.' : '.') : null);
    schedulesPaging.next = more ? cursor : null;
    $('schedules-next').disabled = !more;
    $('schedules-prev').disabled = schedulesPaging.cursors.length <= 1;
  });
}

function pauseResumeButton(s, onDone) {
  if (s.status !== 'active' && s.status !== 'paused') return null;
  const action = s.status === 'active' ? 'pause' : 'resume';
  const b = el('button', { type: 'button', class: action, data: { action } }, action === 'pause' ? 'Pause' : 'Resume');
  b.addEventListener('click', async () => {
    b.disabled = true;
    const updated = await guarded(() => api('POST', '/v1/schedules/' + encodeURIComponent(s.id) + '/' + action, undefined, newKey()));
    b.disabled = false;
    if (updated) onDone(updated);
  });
  return b;
}

function scheduleLink(id) {
  return el('a', { class: 'mono schedule-link', href: '#/schedules/' + encodeURIComponent(id) }, id);
}

function deliveryLink(id) {
  return el('a', { class: 'mono delivery-link', href: '#/deliveries/' + encodeURIComponent(id) }, id);
}

function scheduleRow(s) {
  const row = el('tr', { data: { id: s.id } });
  const fill = (sched) => {
    row.replaceChildren(
      el('td', {}, scheduleLink(sched.id)),
      el('td', { class: 'schedule-status' }, statusBadge(sched.status),
        sched.paused_reason ? el('span', { class: 'muted' }, ' ' + sched.paused_reason) : null),
      el('td', {}, sched.kind),
      el('td', { class: 'next-fire' }, timeEl(sched.next_fire_at)),
      el('td', { class: 'mono wrap endpoint' }, sched.endpoint),
      el('td', { class: 'mono event-type' }, text(sched.event_type)),
      el('td', { class: 'mono wrap metadata' }, json(sched.metadata)),
      el('td', {}, pauseResumeButton(sched, fill)));
  };
  fill(s);
  return row;
}

// ---- one schedule ----

function fieldList(id, fields) {
  $(id).replaceChildren(...fields.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { data: { field: k } }, v === null || v === undefined ? '—' : v)]));
}

async function openSchedule(id) {
  detail = { id, lastDeliveryId: null };
  selectView('schedule-view', 'tab-schedules');
  $('schedule-id').textContent = id;
  for (const list of ['schedule-timing', 'schedule-retry', 'schedule-state', 'schedule-payload', 'schedule-actions']) $(list).replaceChildren();
  $('deliveries').tBodies[0].replaceChildren();
  show('deliveries-empty', false);
  show('deliveries-more', false);
  await guarded(async () => {
    renderSchedule(await api('GET', '/v1/schedules/' + encodeURIComponent(id)));
    await loadDeliveries(false);
  });
}

function renderSchedule(s) {
  scheduleCache.set(s.id, s);
  const timing = [['Kind', s.kind]];
  if (s.kind === 'once') timing.push(['Fire at', timeEl(s.fire_at)]);
  if (s.rrule !== undefined) timing.push(['RRULE', el('code', { class: 'rule' }, s.rrule)]);
  if (s.cron !== undefined) timing.push(['Cron', el('code', { class: 'rule' }, s.cron)]);
  if (s.timezone !== undefined) {
    timing.push(['Time zone', s.timezone], ['Start (local)', text(s.dtstart)], ['Until', timeEl(s.until)], ['Count', text(s.count)],
      ['Except', s.exdates.length ? s.exdates.join(', ') : '—'], ['Catch-up', s.catch_up]);
  }
  timing.push(['Next fire', timeEl(s.next_fire_at, 'next-fire')]);
  fieldList('schedule-timing', timing);
  fieldList('schedule-retry', [['Max attempts', String(s.retry.max_attempts)], ['Initial backoff', s.retry.initial_backoff],
    ['Max backoff', s.retry.max_backoff], ['Max age', s.retry.max_age], ['Timeout', s.timeout],
    ['Auto-pause after', s.auto_pause_after === 0 ? 'never' : String(s.auto_pause_after) + ' failures'],
    ['Flow control', s.flow_control ? json(s.flow_control) : '—']]);
  fieldList('schedule-state', [['Status', statusBadge(s.status)], ['Paused reason', text(s.paused_reason)],
    ['Consecutive failures', String(s.consecutive_failures)], ['Last delivery', s.last_delivery_status ? statusBadge(s.last_delivery_status) : '—'],
    ['Created', timeEl(s.created_at)], ['Updated', timeEl(s.updated_at)]]);
  let payload;
  if (s.payload !== null) payload = el('pre', { class: 'payload' }, JSON.stringify(s.payload, null, 2));
  else if (s.body !== null) payload = el('pre', { class: 'payload' }, s.body);
  else payload = el('span', { class: 'muted payload' }, 'the envelope (schedule id, delivery id, scheduled_for, attempt, …), see SPEC section 3');
  fieldList('schedule-payload', [['Endpoint', el('span', { class: 'mono' }, s.endpoint)], ['Event type', text(s.event_type)],
    ['Body', payload], ['Content type', text(s.content_type)],
    ['Headers', Object.keys(s.headers).length ? el('pre', {}, Object.entries(s.headers).map(([k, v]) => k + ': ' + v).join('\n')) : '—'],
    ['Header profile', s.header_profile], ['Idempotency key', text(s.idempotency_key)], ['Dedup id', text(s.dedup_id)],
    ['Metadata', el('span', { class: 'mono metadata' }, json(s.metadata))]]);
  $('schedule-actions').replaceChildren(...[pauseResumeButton(s, renderSchedule), deleteButton(s)].filter(Boolean));
}

function deleteButton(s) {
  if (s.status === 'deleted') return null;
  const b = el('button', { type: 'button', class: 'delete danger' }, 'Delete');
  b.addEventListener('click', () => {
    const yes = el('button', { type: 'button', class: 'confirm-delete danger' }, 'Yes, delete ' + s.id);
    const no = el('button', { type: 'button', class: 'cancel-delete' }, 'Cancel');
    const ask = el('span', { class: 'confirm' }, 'Pending deliveries are cancelled; the history is kept. ', yes, ' ', no);
    b.replaceWith(ask);
    no.addEventListener('click', () => ask.replaceWith(b));
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      const deleted = await guarded(() => api('DELETE', '/v1/schedules/' + encodeURIComponent(s.id), undefined, newKey()));
      if (!deleted) {
        yes.disabled = false;
        return;
      }
      renderSchedule(deleted);
      message('notice', 'Schedule ' + s.id + ' deleted.');
      await guarded(() => loadDeliveries(false));
    });
  });
  return b;
}

async function loadDeliveries(more) {
  const params = new URLSearchParams({ schedule_id: detail.id, limit: String(PAGE) });
  if (more && detail.lastDeliveryId) params.set('starting_after', detail.lastDeliveryId);
  const page = await api('GET', '/v1/deliveries?' + params);
  const body = $('deliveries').tBodies[0];
  if (!more) body.replaceChildren();
  for (const d of page.data) body.append(...deliveryRows(d));
  detail.lastDeliveryId = page.data.length ? page.data[page.data.length - 1].id : detail.lastDeliveryId;
  show('deliveries-empty', body.children.length === 0);
  show('deliveries-more', page.has_more);
}

function deliveryRows(d) {
  const row = el('tr', { class: 'delivery', data: { id: d.id } },
    el('td', {}, deliveryLink(d.id)),
    el('td', { class: 'delivery-status' }, statusBadge(d.status)),
    el('td', {}, timeEl(d.scheduled_for)),
    el('td', {}, String(d.attempt_count)),
    el('td', { class: 'wrap last-error' }, text(d.last_error)));
  const attempts = el('tr', { class: 'attempts', data: { delivery: d.id } }, el('td', { colspan: '6' }));
  attempts.hidden = true;
  const toggle = el('button', { type: 'button', class: 'show-attempts' }, 'Attempts');
  toggle.addEventListener('click', async () => {
    if (!attempts.hidden) {
      attempts.hidden = true;
      return;
    }
    const full = await guarded(() => api('GET', '/v1/deliveries/' + encodeURIComponent(d.id)));
    if (!full) return;
    attempts.firstChild.replaceChildren(attemptsTable(full.attempts));
    attempts.hidden = false;
  });
  row.append(el('td', {}, toggle));
  return [row, attempts];
}

function attemptsTable(list) {
  if (!list.length) return el('p', { class: 'muted' }, 'No attempt yet.');
  return el('table', { class: 'attempts-table' },
    el('thead', {}, el('tr', {}, ...['#', 'Started', 'Duration', 'Status code', 'Error', 'Response (first 1 KiB)'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...list.map((a) => el('tr', { class: 'attempt' },
      el('td', { class: 'attempt-number' }, String(a.number)),
      el('td', { class: 'attempt-started' }, timeEl(a.started_at)),
      el('td', {}, a.duration_ms + ' ms'),
      el('td', { class: 'attempt-status' }, text(a.status_code)),
      el('td', { class: 'wrap attempt-error' }, text(a.error)),
      el('td', { class: 'wrap' }, a.response_body === null ? '—' : el('pre', { class: 'attempt-response' }, a.response_body))))));
}

// ---- one delivery: its request as sent beside its attempts ----

async function openDelivery(id) {
  selectView('delivery-view', null);
  $('delivery-id').textContent = id;
  for (const e of ['delivery-fields', 'delivery-actions', 'delivery-attempts']) $(e).replaceChildren();
  show('request-shown', false);
  show('request-none', false);
  await guarded(async () => renderDelivery(await api('GET', '/v1/deliveries/' + encodeURIComponent(id))));
}

function replayButton(d, onDone) {
  if (d.status !== 'dead' && d.status !== 'succeeded') return null;
  const b = el('button', { type: 'button', class: 'replay' }, 'Replay');
  b.addEventListener('click', async () => {
    b.disabled = true;
    const replayed = await guarded(() => api('POST', '/v1/deliveries/' + encodeURIComponent(d.id) + '/replay', undefined, newKey()));
    if (!replayed) {
      b.disabled = false;
      return;
    }
    message('notice', 'Replay of ' + d.id + ' queued: attempt ' + (replayed.attempt_count + 1) + ' goes out now.');
    refreshCounters();
    onDone(replayed);
  });
  return b;
}

function renderDelivery(d) {
  $('delivery-back').setAttribute('href', '#/schedules/' + encodeURIComponent(d.schedule_id));
  $('delivery-back').textContent = '← Schedule ' + d.schedule_id;
  fieldList('delivery-fields', [['Status', statusBadge(d.status)], ['Schedule', scheduleLink(d.schedule_id)],
    ['Scheduled for', timeEl(d.scheduled_for)], ['Attempts', String(d.attempt_count)], ['Next attempt', timeEl(d.next_attempt_at)],
    ['Sequence', String(d.sequence)], ['Idempotency key', el('span', { class: 'mono' }, d.idempotency_key)],
    ['Last error', el('span', { class: 'last-error' }, text(d.last_error))]]);
  $('delivery-actions').replaceChildren(...[replayButton(d, () => openDelivery(d.id))].filter(Boolean));
  $('delivery-attempts').replaceChildren(attemptsTable(d.attempts || []));
  const r = d.request;
  show('request-none', !r);
  show('request-shown', !!r);
  if (!r) {
    $('request-attempt').textContent = '';
    return;
  }
  $('request-attempt').textContent = '(attempt ' + r.attempt + ')';
  $('request-method').textContent = r.method;
  $('request-url').textContent = r.url;
  $('request-headers').tBodies[0].replaceChildren(...Object.entries(r.headers).map(([k, v]) =>
    el('tr', { class: 'request-header', data: { name: k.toLowerCase() } }, el('td', { class: 'mono' }, k), el('td', { class: 'mono wrap' }, v))));
  $('request-body').textContent = r.body;
  $('request-note').textContent = 'Rebuilt by the engine\'s own request builder from the attempt\'s number and start (nothing of a request is stored);'
    + ' it is what was sent unless the schedule was changed since.' + (r.signature_omitted ? ' Signature not shown: ' + r.signature_omitted + '.' : '');
}

// ---- dead-letter queue ----

function dlqFilterFromForm() {
  return { schedule_id: $('dlq-schedule').value.trim(), endpoint: $('dlq-endpoint').value.trim() };
}

async function scheduleOf(id) {
  if (!scheduleCache.has(id)) {
    try {
      scheduleCache.set(id, await api('GET', '/v1/schedules/' + encodeURIComponent(id)));
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
      scheduleCache.set(id, null);
    }
  }
  return scheduleCache.get(id);
}

/**
 * Dead deliveries matching the filter, from `starting_after`: the API filters by status and schedule; the
 * endpoint (an exact URL, as the bulk replay takes it) is matched here against each delivery's schedule.
 */
async function deadPage(filter, startingAfter, want) {
  const out = [];
  let cursor = startingAfter;
  let more = false;
  for (let pages = 0; pages < SCAN_PAGES; pages++) {
    const params = new URLSearchParams({ status: 'dead', limit: String(filter.endpoint ? SCAN_LIMIT : want) });
    if (filter.schedule_id) params.set('schedule_id', filter.schedule_id);
    if (cursor) params.set('starting_after', cursor);
    const page = await api('GET', '/v1/deliveries?' + params);
    let i = 0;
    for (; i < page.data.length && out.length < want; i++) {
      const d = page.data[i];
      cursor = d.id;
      const s = await scheduleOf(d.schedule_id);
      d.endpoint = s ? s.endpoint : null;
      if (!filter.endpoint || d.endpoint === filter.endpoint) out.push(d);
    }
    more = i < page.data.length || page.has_more;
    if (!more || out.length >= want) break;
  }
  return { data: out, cursor, more };
}

function openDlq(params) {
  selectView('dlq-view', 'tab-dlq');
  $('dlq-schedule').value = params.get('schedule_id') || '';
  $('dlq-endpoint').value = params.get('endpoint') || '';
  show('dlq-confirm', false);
  return loadDlq(false);
}

async function loadDlq(more) {
  await guarded(async () => {
    if (!more) {
      dlq = { last: null, hasMore: false, filter: dlqFilterFromForm() };
      selected.clear();
      $('dlq').tBodies[0].replaceChildren();
      $('dlq-select-all').checked = false;
    }
    const page = await deadPage(dlq.filter, dlq.last, PAGE);
    $('dlq').tBodies[0].append(...page.data.map(dlqRow));
    dlq.last = page.cursor;
    dlq.hasMore = page.more;
    show('dlq-empty', $('dlq').tBodies[0].children.length === 0);
    show('dlq-more', page.more);
    updateSelection();
  });
}

function updateSelection() {
  $('dlq-replay-selected').textContent = 'Replay selected (' + selected.size + ')';
  $('dlq-replay-selected').disabled = selected.size === 0;
}

function removeDlqRow(id) {
  const row = document.querySelector('#dlq tr[data-id="' + CSS.escape(id) + '"]');
  if (row) row.remove();
  selected.delete(id);
  show('dlq-empty', $('dlq').tBodies[0].children.length === 0);
  updateSelection();
}

function dlqRow(d) {
  const box = el('input', { type: 'checkbox', class: 'select', 'aria-label': 'Select ' + d.id });
  box.addEventListener('change', () => {
    if (box.checked) selected.add(d.id);
    else selected.delete(d.id);
    updateSelection();
  });
  const row = el('tr', { data: { id: d.id } },
    el('td', {}, box),
    el('td', {}, deliveryLink(d.id)),
    el('td', {}, scheduleLink(d.schedule_id)),
    el('td', { class: 'mono wrap endpoint' }, text(d.endpoint)),
    el('td', {}, timeEl(d.scheduled_for)),
    el('td', {}, String(d.attempt_count)),
    el('td', { class: 'wrap last-error' }, text(d.last_error)),
    el('td', {}, replayButton(d, () => removeDlqRow(d.id))));
  return row;
}

async function replaySelected() {
  const ids = [...selected];
  $('dlq-replay-selected').disabled = true;
  let done = 0;
  const failed = [];
  for (const id of ids) {
    try {
      await api('POST', '/v1/deliveries/' + encodeURIComponent(id) + '/replay', undefined, newKey());
      removeDlqRow(id);
      done++;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return guarded(() => Promise.reject(e));
      failed.push(id + ': ' + describe(e));
    }
  }
  message('notice', 'Replayed ' + done + ' of ' + ids.length + ' selected deliveries.');
  message('error', failed.length ? 'Not replayed: ' + failed.join('; ') : null);
  updateSelection();
  refreshCounters();
}

/**
 * Every dead delivery matching the filter: one call to the bulk endpoint (POST /v1/deliveries/replay) with an
 * Idempotency-Key, so a retried click replays nothing twice. A server without that endpoint (404) gets the
 * same filter applied here, page by page, one replay per delivery.
 */
async function replayAllMatching() {
  show('dlq-confirm', false);
  const filter = dlqFilterFromForm();
  $('dlq-replay-all').disabled = true;
  try {
    await guarded(async () => {
      const body = { status: 'dead' };
      if (filter.schedule_id) body.schedule_id = filter.schedule_id;
      if (filter.endpoint) body.endpoint = filter.endpoint;
      let replayed;
      try {
        replayed = (await api('POST', '/v1/deliveries/replay', body, newKey())).replayed;
      } catch (e) {
        if (!(e instanceof ApiError) || (e.status !== 404 && e.status !== 405)) throw e;
        replayed = await replayOneByOne(filter);
      }
      message('notice', 'Replayed ' + replayed + ' dead ' + (replayed === 1 ? 'delivery' : 'deliveries') + ' matching the filter.');
      refreshCounters();
      await loadDlq(false);
    });
  } finally {
    $('dlq-replay-all').disabled = false;
  }
}

async function replayOneByOne(filter) {
  // replayed deliveries leave the queue, so each round reads from the start; ids already sent are not sent twice
  const sent = new Set();
  for (;;) {
    const page = await deadPage(filter, null, SCAN_LIMIT);
    const todo = page.data.filter((d) => !sent.has(d.id));
    if (!todo.length) return sent.size;
    for (const d of todo) {
      sent.add(d.id);
      try {
        await api('POST', '/v1/deliveries/' + encodeURIComponent(d.id) + '/replay', undefined, newKey());
      } catch (e) {
        // replayed meanwhile (by another operator, or its replay already failed again): not ours to count
        if (!(e instanceof ApiError) || e.code !== 'delivery_not_replayable') throw e;
        sent.delete(d.id);
      }
    }
    if (!page.more) return sent.size;
  }
}

// ---- create ----

const WHEN = {
  now: { label: 'When', placeholder: 'now', disabled: true },
  delay: { label: 'Delay', placeholder: '90s, 24h or PT24H' },
  fire_at: { label: 'Fire at (RFC 3339)', placeholder: '2026-03-10T17:00:00Z' },
  rrule: { label: 'Rule (RRULE)', placeholder: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0' },
  cron: { label: 'Cron', placeholder: '0 9 * * MON-FRI' },
};

function openCreate() {
  selectView('create-view', 'tab-new');
  if (!$('create-timezone').value) $('create-timezone').value = ZONE;
  message('create-error', null);
  kindChanged();
}

function kindChanged() {
  const kind = $('create-kind').value;
  $('create-when-label').textContent = WHEN[kind].label;
  $('create-when').placeholder = WHEN[kind].placeholder;
  $('create-when').disabled = !!WHEN[kind].disabled;
  const recurring = kind === 'rrule' || kind === 'cron';
  for (const id of ['create-timezone', 'create-dtstart']) $(id).disabled = !recurring;
  show('preview', recurring);
  schedulePreview();
}

function schedulePreview() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(preview, 250);
}

/** The rule's next occurrences from the API's preview, which compiles it as the scheduler does; or its error. */
async function preview() {
  const kind = $('create-kind').value;
  const rule = $('create-when').value.trim();
  const seq = ++previewSeq;
  if ((kind !== 'rrule' && kind !== 'cron') || !rule) {
    $('preview-list').replaceChildren();
    message('preview-error', null);
    show('preview-hint', true);
    return;
  }
  const params = new URLSearchParams({ [kind]: rule, count: String(PREVIEW_COUNT) });
  if ($('create-timezone').value.trim()) params.set('timezone', $('create-timezone').value.trim());
  if ($('create-dtstart').value.trim()) params.set('dtstart', $('create-dtstart').value.trim());
  try {
    const res = await fetch('/v1/recurrence/preview?' + params, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'omit' });
    const body = await res.json();
    if (seq !== previewSeq) return; // a later keystroke's answer wins
    show('preview-hint', false);
    if (!res.ok) {
      $('preview-list').replaceChildren();
      const e = body.error || {};
      message('preview-error', (e.param ? e.param + ': ' : '') + (e.message || 'HTTP ' + res.status));
      return;
    }
    message('preview-error', null);
    $('preview-list').replaceChildren(...body.occurrences.map((o) =>
      el('li', { class: 'occurrence' }, el('span', { class: 'mono' }, o.local), ' ' + (params.get('timezone') || 'default zone') + ' · ', timeEl(o.utc))));
    if (!body.occurrences.length) $('preview-list').append(el('li', { class: 'muted' }, 'No occurrence: the rule has ended.'));
  } catch (e) {
    if (seq === previewSeq) message('preview-error', 'Cannot reach the Idem server: ' + e.message);
  }
}

async function submitCreate(event) {
  event.preventDefault();
  message('create-error', null);
  const kind = $('create-kind').value;
  const body = { endpoint: $('create-endpoint').value.trim() };
  const when = $('create-when').value.trim();
  if (kind !== 'now') body[kind] = when;
  if (kind === 'rrule' || kind === 'cron') {
    if ($('create-timezone').value.trim()) body.timezone = $('create-timezone').value.trim();
    if ($('create-dtstart').value.trim()) body.dtstart = $('create-dtstart').value.trim();
  }
  if ($('create-event-type').value.trim()) body.event_type = $('create-event-type').value.trim();
  if ($('create-payload').value.trim()) {
    try {
      body.payload = JSON.parse($('create-payload').value);
    } catch (e) {
      message('create-error', 'payload: not valid JSON (' + e.message + ')');
      return;
    }
  }
  if ($('create-attempts').value) body.retry = { max_attempts: Number($('create-attempts').value) };
  $('create-submit').disabled = true;
  try {
    const created = await api('POST', '/v1/schedules', body, newKey());
    $('create-form').reset();
    $('create-timezone').value = ZONE;
    go('#/schedules/' + encodeURIComponent(created.id));
    message('notice', 'Schedule ' + created.id + ' created.');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return guarded(() => Promise.reject(e));
    message('create-error', (e.param ? e.param + ': ' : '') + describe(e));
  } finally {
    $('create-submit').disabled = false;
  }
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
    for (const box of document.querySelectorAll('#dlq tbody input.select')) {
      box.checked = $('dlq-select-all').checked;
      box.dispatchEvent(new Event('change'));
    }
  });
  $('dlq-replay-selected').addEventListener('click', replaySelected);
  $('dlq-replay-all').addEventListener('click', () => show('dlq-confirm', true));
  $('dlq-confirm-no').addEventListener('click', () => show('dlq-confirm', false));
  $('dlq-confirm-yes').addEventListener('click', replayAllMatching);
  $('create-form').addEventListener('submit', submitCreate);
  $('create-kind').addEventListener('change', kindChanged);
  for (const id of ['create-when', 'create-timezone', 'create-dtstart']) $(id).addEventListener('input', schedulePreview);
  apiKey = sessionStorage.getItem(KEY_ITEM);
  if (apiKey) start();
});
