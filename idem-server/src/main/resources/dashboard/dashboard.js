// Idem dashboard: plain DOM, no framework, no build step. Every value from the API is inserted as text
// (textContent / text nodes, never innerHTML), so schedule metadata, errors and response bodies cannot
// become markup. The API key lives in sessionStorage: it is a full-power secret, so it goes when the tab
// closes; it is sent only in the Authorization header, never in a URL.
'use strict';

const KEY_ITEM = 'idem.apiKey';
const COUNTERS_EVERY_MS = 3000;
const PAGE = 20;

const $ = (id) => document.getElementById(id);
let apiKey = null;
let countersTimer = null;
const schedulesPaging = { cursors: [null], hasMore: false };
let detail = { id: null, lastDeliveryId: null };
let dlqLast = null;

class ApiError extends Error {
  constructor(status, error) {
    super((error && error.message) || ('HTTP ' + status));
    this.status = status;
    this.code = error && error.code;
    this.requestId = error && error.request_id;
  }
}

/** Builds an element; children that are not nodes become text nodes. */
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
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

async function api(method, path) {
  const res = await fetch(path, {
    method,
    headers: { Authorization: 'Bearer ' + apiKey, Accept: 'application/json' },
    cache: 'no-store',
    credentials: 'omit',
  });
  let body = null;
  try {
    body = await res.json();
  } catch (notJson) {
    body = null;
  }
  if (!res.ok) throw new ApiError(res.status, body && body.error);
  return body;
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
  countersTimer = setInterval(refreshCounters, COUNTERS_EVERY_MS);
  openSchedules(true);
}

// ---- counters ----

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
    for (const w of document.querySelectorAll('.window')) w.textContent = String(s.window_seconds);
    $('counters-as-of').textContent = 'as of ' + s.as_of;
  });
}

// ---- views ----

function selectView(view) {
  for (const v of ['schedules-view', 'schedule-view', 'dlq-view']) show(v, v === view);
  $('tab-schedules').classList.toggle('selected', view !== 'dlq-view');
  $('tab-dlq').classList.toggle('selected', view === 'dlq-view');
}

function openSchedules(fromStart) {
  if (fromStart) schedulesPaging.cursors = [null];
  selectView('schedules-view');
  return loadSchedules();
}

async function loadSchedules() {
  await guarded(async () => {
    const cursor = schedulesPaging.cursors[schedulesPaging.cursors.length - 1];
    const params = new URLSearchParams({ limit: String(PAGE) });
    if ($('schedule-status').value) params.set('status', $('schedule-status').value);
    if (cursor) params.set('starting_after', cursor);
    const page = await api('GET', '/v1/schedules?' + params);
    const body = $('schedules').tBodies[0];
    body.replaceChildren(...page.data.map(scheduleRow));
    show('schedules-empty', page.data.length === 0);
    schedulesPaging.hasMore = page.has_more;
    schedulesPaging.last = page.data.length ? page.data[page.data.length - 1].id : null;
    $('schedules-next').disabled = !page.has_more;
    $('schedules-prev').disabled = schedulesPaging.cursors.length <= 1;
  });
}

function pauseResumeButton(s, onDone) {
  if (s.status !== 'active' && s.status !== 'paused') return null;
  const action = s.status === 'active' ? 'pause' : 'resume';
  const b = el('button', { type: 'button', class: action, data: { action } }, action === 'pause' ? 'Pause' : 'Resume');
  b.addEventListener('click', async () => {
    b.disabled = true;
    const updated = await guarded(() => api('POST', '/v1/schedules/' + encodeURIComponent(s.id) + '/' + action));
    b.disabled = false;
    if (updated) onDone(updated);
  });
  return b;
}

function scheduleRow(s) {
  const row = el('tr', { data: { id: s.id } });
  const fill = (sched) => {
    const link = el('a', { class: 'mono schedule-link', href: '#' }, sched.id);
    link.addEventListener('click', (e) => {
      e.preventDefault();
      openSchedule(sched.id);
    });
    row.replaceChildren(
      el('td', {}, link),
      el('td', { class: 'schedule-status' }, statusBadge(sched.status),
        sched.paused_reason ? el('span', { class: 'muted' }, ' ' + sched.paused_reason) : null),
      el('td', {}, sched.kind),
      el('td', { class: 'mono next-fire' }, text(sched.next_fire_at)),
      el('td', { class: 'mono wrap' }, sched.endpoint),
      el('td', { class: 'mono wrap metadata' }, sched.metadata === null ? '—' : JSON.stringify(sched.metadata)),
      el('td', {}, pauseResumeButton(sched, fill)));
  };
  fill(s);
  return row;
}

async function openSchedule(id) {
  detail = { id, lastDeliveryId: null };
  selectView('schedule-view');
  $('schedule-id').textContent = id;
  $('schedule-fields').replaceChildren();
  $('schedule-actions').replaceChildren();
  $('deliveries').tBodies[0].replaceChildren();
  await guarded(async () => {
    renderSchedule(await api('GET', '/v1/schedules/' + encodeURIComponent(id)));
    await loadDeliveries(false);
  });
}

function renderSchedule(s) {
  const fields = [['Status', statusBadge(s.status)], ['Kind', s.kind], ['Next fire (UTC)', text(s.next_fire_at)],
    ['Endpoint', s.endpoint], ['When', s.rrule || s.cron || s.fire_at || '—'], ['Time zone', text(s.timezone)],
    ['Event type', text(s.event_type)], ['Consecutive failures', String(s.consecutive_failures)],
    ['Paused reason', text(s.paused_reason)], ['Metadata', s.metadata === null ? '—' : JSON.stringify(s.metadata)],
    ['Created', s.created_at]];
  $('schedule-fields').replaceChildren(...fields.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { data: { field: k } }, v)]));
  $('schedule-actions').replaceChildren(...[pauseResumeButton(s, renderSchedule)].filter(Boolean));
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
    el('td', { class: 'mono' }, d.id),
    el('td', { class: 'delivery-status' }, statusBadge(d.status)),
    el('td', { class: 'mono' }, d.scheduled_for),
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
    el('thead', {}, el('tr', {}, ...['#', 'Started (UTC)', 'Duration', 'Status code', 'Error', 'Response (first 1 KiB)'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...list.map((a) => el('tr', { class: 'attempt' },
      el('td', { class: 'attempt-number' }, String(a.number)),
      el('td', { class: 'mono' }, a.started_at),
      el('td', {}, a.duration_ms + ' ms'),
      el('td', { class: 'attempt-status' }, text(a.status_code)),
      el('td', { class: 'wrap attempt-error' }, text(a.error)),
      el('td', { class: 'wrap' }, a.response_body === null ? '—' : el('pre', { class: 'attempt-response' }, a.response_body))))));
}

async function openDlq(more) {
  selectView('dlq-view');
  await guarded(async () => {
    const params = new URLSearchParams({ status: 'dead', limit: String(PAGE) });
    if (more && dlqLast) params.set('starting_after', dlqLast);
    const page = await api('GET', '/v1/deliveries?' + params);
    const body = $('dlq').tBodies[0];
    if (!more) body.replaceChildren();
    body.append(...page.data.map(dlqRow));
    dlqLast = page.data.length ? page.data[page.data.length - 1].id : dlqLast;
    show('dlq-empty', body.children.length === 0);
    show('dlq-more', page.has_more);
  });
}

function dlqRow(d) {
  const link = el('a', { class: 'mono', href: '#' }, d.schedule_id);
  link.addEventListener('click', (e) => {
    e.preventDefault();
    openSchedule(d.schedule_id);
  });
  const replay = el('button', { type: 'button', class: 'replay' }, 'Replay');
  const row = el('tr', { data: { id: d.id } },
    el('td', { class: 'mono' }, d.id),
    el('td', {}, link),
    el('td', { class: 'mono' }, d.scheduled_for),
    el('td', {}, String(d.attempt_count)),
    el('td', { class: 'wrap last-error' }, text(d.last_error)),
    el('td', {}, replay));
  replay.addEventListener('click', async () => {
    replay.disabled = true;
    const replayed = await guarded(() => api('POST', '/v1/deliveries/' + encodeURIComponent(d.id) + '/replay'));
    if (!replayed) {
      replay.disabled = false;
      return;
    }
    row.remove();
    show('dlq-empty', $('dlq').tBodies[0].children.length === 0);
    message('notice', 'Replay of ' + d.id + ' queued: attempt ' + (replayed.attempt_count + 1) + ' goes out now.');
    refreshCounters();
  });
  return row;
}

document.addEventListener('DOMContentLoaded', () => {
  $('key-form').addEventListener('submit', submitKey);
  $('forget-key').addEventListener('click', () => forgetKey(null));
  $('tab-schedules').addEventListener('click', () => openSchedules(true));
  $('tab-dlq').addEventListener('click', () => openDlq(false));
  $('back').addEventListener('click', () => openSchedules(false));
  $('schedules-refresh').addEventListener('click', () => loadSchedules());
  $('schedule-status').addEventListener('change', () => openSchedules(true));
  $('schedules-next').addEventListener('click', () => {
    if (!schedulesPaging.hasMore || !schedulesPaging.last) return;
    schedulesPaging.cursors.push(schedulesPaging.last);
    loadSchedules();
  });
  $('schedules-prev').addEventListener('click', () => {
    if (schedulesPaging.cursors.length > 1) schedulesPaging.cursors.pop();
    loadSchedules();
  });
  $('deliveries-more').addEventListener('click', () => guarded(() => loadDeliveries(true)));
  $('dlq-refresh').addEventListener('click', () => openDlq(false));
  $('dlq-more').addEventListener('click', () => openDlq(true));
  apiKey = sessionStorage.getItem(KEY_ITEM);
  if (apiKey) start();
});
