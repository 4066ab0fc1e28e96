// Idem dashboard, part 2 of 7 (after dashboard.js): the schedules list with its filters, one schedule's
// definition and deliveries, one delivery's request as sent beside its attempts.
'use strict';

const schedulesPaging = { cursors: [null], next: null };
let detail = { id: null, lastDeliveryId: null };

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
    timing.push(['Time zone', s.timezone], ['Start (local)', text(s.dtstart)], ['Until', timeInZones(s.until, s.timezone)], ['Count', text(s.count)],
      ['Except', s.exdates.length ? s.exdates.join(', ') : '—'], ['Catch-up', s.catch_up]);
  }
  // in the viewer's zone and, for a rule, in the rule's own zone too (as the create form's preview shows it)
  timing.push(['Next fire', timeInZones(s.next_fire_at, s.timezone, 'next-fire')]);
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
  else payload = el('span', { class: 'muted payload' }, 'the envelope (schedule id, delivery id, scheduled_for, attempt, …), see docs/wire.md');
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
  return withAttempts(row, d, 6);
}

/**
 * A delivery's row followed by a hidden row, `columns` wide, for its attempts: a button at the end of the row reads
 * them (GET /v1/deliveries/{id}) and shows them, or hides them again.
 */
function withAttempts(row, d, columns) {
  const attempts = el('tr', { class: 'attempts', data: { delivery: d.id } }, el('td', { colspan: String(columns) }));
  attempts.hidden = true;
  const toggle = el('button', { type: 'button', class: 'show-attempts', 'aria-expanded': 'false' }, 'Attempts');
  toggle.addEventListener('click', async () => {
    if (!attempts.hidden) {
      attempts.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
      return;
    }
    const full = await guarded(() => api('GET', '/v1/deliveries/' + encodeURIComponent(d.id)));
    if (!full) return;
    attempts.firstChild.replaceChildren(attemptsTable(full.attempts));
    attempts.hidden = false;
    toggle.setAttribute('aria-expanded', 'true');
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
  // a message's delivery to one endpoint leads back to its message; any other to its schedule
  const back = d.message_id ? ['#/messages/', d.message_id, '← Message '] : ['#/schedules/', d.schedule_id, '← Schedule '];
  $('delivery-back').setAttribute('href', back[0] + encodeURIComponent(back[1]));
  $('delivery-back').textContent = back[2] + back[1];
  const origin = d.message_id
    ? [['Message', messageLink(d.message_id)], ['Endpoint', endpointLink(d.endpoint_id)]]
    : [['Schedule', scheduleLink(d.schedule_id)]];
  fieldList('delivery-fields', [['Status', statusBadge(d.status)], ...origin,
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
