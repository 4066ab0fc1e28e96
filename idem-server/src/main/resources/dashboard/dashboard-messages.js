// Idem dashboard, part 7 of 7: messages (GET /v1/messages, searched in the store by event type, application, delivery
// status and time), and one message with its delivery to each endpoint; each delivery opens on its attempts inline,
// and its link leads to the delivery view (the request as sent beside every attempt).
'use strict';

let messagesPaging = { last: null, filter: {} };

function messageLink(id) {
  return id ? el('a', { class: 'mono message-link', href: '#/messages/' + encodeURIComponent(id) }, id) : '—';
}

function messageFilterFromForm() {
  const f = { event_type: $('messages-event-type').value.trim(), application: $('messages-application').value.trim(),
    delivery_status: $('messages-status').value };
  for (const side of ['since', 'until']) {
    const v = $('messages-' + side).value;
    if (v) f[side] = new Date(v).toISOString();
  }
  return f;
}

/** The value of a datetime-local field for an RFC 3339 instant, in the viewer's zone. */
function localField(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

function openMessages(params) {
  selectView('messages-view', 'tab-messages');
  $('messages-event-type').value = params.get('event_type') || '';
  $('messages-application').value = params.get('application') || '';
  $('messages-status').value = params.get('delivery_status') || '';
  $('messages-since').value = localField(params.get('since'));
  $('messages-until').value = localField(params.get('until'));
  return loadMessages(false);
}

const MESSAGE_FIELDS = ['event_type', 'application', 'delivery_status', 'since', 'until'];

async function loadMessages(more) {
  for (const f of MESSAGE_FIELDS) message('messages-error-' + f, null);
  if (!more) {
    messagesPaging = { last: null, filter: messageFilterFromForm() };
    $('messages').tBodies[0].replaceChildren();
  }
  const q = new URLSearchParams({ limit: String(PAGE) });
  for (const [k, v] of Object.entries(messagesPaging.filter)) if (v) q.set(k, v);
  if (more && messagesPaging.last) q.set('starting_after', messagesPaging.last);
  let page;
  try {
    page = await api('GET', '/v1/messages?' + q);
  } catch (e) {
    // a filter the API refuses is said beside that filter
    if (e instanceof ApiError && e.status === 400 && MESSAGE_FIELDS.includes(e.param)) message('messages-error-' + e.param, e.message);
    else await guarded(() => Promise.reject(e));
    return;
  }
  $('messages').tBodies[0].append(...page.data.map((m) => el('tr', { class: 'message', data: { id: m.id } },
    el('td', {}, messageLink(m.id)),
    el('td', { class: 'mono' }, m.event_type),
    el('td', {}, applicationLink(m.application)),
    el('td', { class: 'message-deliveries' }, String(m.deliveries)),
    el('td', {}, m.schedule_id ? scheduleLink(m.schedule_id) : '—'),
    el('td', {}, timeEl(m.created_at)))));
  messagesPaging.last = page.data.length ? page.data[page.data.length - 1].id : messagesPaging.last;
  show('messages-empty', $('messages').tBodies[0].children.length === 0);
  show('messages-more', page.has_more);
}

async function openMessage(id) {
  selectView('message-view', 'tab-messages');
  $('message-id').textContent = id;
  $('message-fields').replaceChildren();
  $('message-deliveries').tBodies[0].replaceChildren();
  show('message-deliveries-empty', false);
  await guarded(async () => {
    const m = await api('GET', '/v1/messages/' + encodeURIComponent(id));
    fieldList('message-fields', [['Event type', el('span', { class: 'mono' }, m.event_type)], ['Application', applicationLink(m.application)],
      ['Sent', timeEl(m.created_at)], ['Deliveries', String(m.deliveries)],
      ['Schedule', m.schedule_id ? scheduleLink(m.schedule_id) : '—'], ['Occurrence', timeEl(m.scheduled_for)],
      ['Idempotency key', text(m.idempotency_key)], ['Dedup id', text(m.dedup_id)],
      ['Payload', el('pre', { class: 'payload' }, JSON.stringify(m.payload, null, 2))]]);
    // each endpoint's URL beside its delivery (a deleted endpoint still answers with its URL)
    const urls = new Map();
    for (const epId of new Set(m.endpoint_deliveries.map((d) => d.endpoint_id))) {
      const e = await api('GET', '/v1/endpoints/' + encodeURIComponent(epId)).catch(() => null);
      urls.set(epId, e ? e.url : null);
    }
    const body = $('message-deliveries').tBodies[0];
    for (const d of m.endpoint_deliveries) body.append(...endpointDeliveryRows(d, urls.get(d.endpoint_id)));
    show('message-deliveries-empty', m.endpoint_deliveries.length === 0);
  });
}

/** One endpoint's delivery of the message, and a row under it for its attempts, shown on request. */
function endpointDeliveryRows(d, url) {
  const row = el('tr', { class: 'message-delivery', data: { id: d.id, endpoint: d.endpoint_id } },
    el('td', {}, endpointLink(d.endpoint_id), url ? el('div', { class: 'mono wrap muted endpoint-url' }, url) : null),
    el('td', {}, deliveryLink(d.id)),
    el('td', { class: 'delivery-status' }, statusBadge(d.status)),
    el('td', {}, String(d.attempt_count)),
    el('td', {}, timeEl(d.next_attempt_at)),
    el('td', { class: 'wrap last-error' }, text(d.last_error)));
  return withAttempts(row, d, 7);
}
