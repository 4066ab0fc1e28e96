// Idem dashboard, part 6 of 7: the fan-out model's catalogue (docs/sending-webhooks.md): applications, their
// endpoints with each one's health (success rate, last failure, disabled state), and the event types. Read-only:
// changes go through the API or the CLI. Messages and their per-endpoint deliveries are in dashboard-messages.js.
'use strict';

/** Every page of a list the API gives (a project has few sources, applications, endpoints, event types), up to SCAN_PAGES. */
async function allPages(path, params) {
  const rows = [];
  let cursor = null;
  let more = true;
  for (let pages = 0; more && pages < SCAN_PAGES; pages++) {
    const q = new URLSearchParams(Object.assign({ limit: String(SCAN_LIMIT) }, params || {}));
    if (cursor) q.set('starting_after', cursor);
    const page = await api('GET', path + '?' + q);
    rows.push(...page.data);
    more = page.has_more;
    cursor = page.data.length ? page.data[page.data.length - 1].id : cursor;
  }
  return rows;
}

function applicationLink(id) {
  return id ? el('a', { class: 'mono application-link', href: '#/applications/' + encodeURIComponent(id) }, id) : '—';
}

function endpointLink(id, label) {
  return el('a', { class: 'mono endpoint-link', href: '#/endpoints/' + encodeURIComponent(id) }, label || id);
}

/** "98% of 50 attempts": the endpoint's success rate over the last day or two, as the API computes it. */
function successRate(h) {
  if (!h || h.success_rate === null || h.success_rate === undefined) return el('span', { class: 'muted success-rate' }, 'no attempt yet');
  const pct = Math.round(h.success_rate * 1000) / 10;
  const cls = pct >= 99 ? 'status-succeeded' : pct >= 90 ? 'status-retrying' : 'status-dead';
  return el('span', { class: 'success-rate' }, el('span', { class: 'status ' + cls }, pct + '%'), ' of ' + h.attempts + ' attempts');
}

/** The last failure: when, and what (the error or the status the endpoint answered). */
function lastFailure(h) {
  if (!h || !h.last_failure_at) return el('span', { class: 'muted last-failure' }, 'none');
  return el('span', { class: 'last-failure' }, timeEl(h.last_failure_at), el('br'), el('span', { class: 'wrap' }, text(h.last_failure)));
}

/** enabled, disabled (with why: by hand, or failing for disable_after), or deleted. */
function endpointState(e) {
  return el('span', { class: 'endpoint-state' }, statusBadge(e.status),
    e.disabled_reason ? el('span', { class: 'muted' }, ' ' + e.disabled_reason) : null,
    e.health && e.health.failing_since ? el('span', { class: 'muted failing-since' }, el('br'), 'failing since ', timeEl(e.health.failing_since)) : null);
}

function endpointRow(e) {
  return el('tr', { class: 'endpoint', data: { id: e.id } },
    el('td', {}, endpointLink(e.id)),
    el('td', { class: 'mono wrap endpoint-url' }, e.url),
    el('td', {}, applicationLink(e.application)),
    el('td', { class: 'mono wrap' }, e.event_types ? e.event_types.join(', ') : 'all'),
    el('td', {}, endpointState(e)),
    el('td', {}, successRate(e.health)),
    el('td', {}, lastFailure(e.health)));
}

// ---- applications ----

async function openApplications() {
  selectView('applications-view', 'tab-applications');
  $('applications').tBodies[0].replaceChildren();
  await guarded(async () => {
    const rows = await allPages('/v1/applications');
    $('applications').tBodies[0].replaceChildren(...rows.map((a) => el('tr', { class: 'application', data: { id: a.id } },
      el('td', {}, applicationLink(a.id)),
      el('td', { class: 'application-name' }, a.name),
      el('td', { class: 'mono' }, text(a.uid)),
      el('td', {}, statusBadge(a.status)),
      el('td', {}, a.rate_limit === null || a.rate_limit === undefined ? '—' : a.rate_limit + '/s'),
      el('td', { class: 'mono wrap' }, json(a.metadata)),
      el('td', {}, timeEl(a.created_at)))));
    show('applications-empty', rows.length === 0);
  });
}

async function openApplication(id) {
  selectView('application-view', 'tab-applications');
  $('application-id').textContent = id;
  $('application-fields').replaceChildren();
  $('application-endpoints').tBodies[0].replaceChildren();
  await guarded(async () => {
    const a = await api('GET', '/v1/applications/' + encodeURIComponent(id));
    fieldList('application-fields', [['Name', a.name], ['UID', text(a.uid)], ['Status', statusBadge(a.status)],
      ['Rate limit', a.rate_limit === null || a.rate_limit === undefined ? '—' : a.rate_limit + '/s'],
      ['Metadata', el('span', { class: 'mono' }, json(a.metadata))], ['Created', timeEl(a.created_at)],
      ['Messages', el('a', { class: 'application-messages', href: filterHash('#/messages', { application: a.id }) }, 'Messages sent to it')]]);
    const endpoints = await allPages('/v1/endpoints', { application: a.id });
    $('application-endpoints').tBodies[0].replaceChildren(...endpoints.map(endpointRow));
    show('application-endpoints-empty', endpoints.length === 0);
  });
}

// ---- endpoints ----

function openEndpoints(params) {
  selectView('endpoints-view', 'tab-endpoints');
  $('endpoints-application').value = params.get('application') || '';
  return loadEndpoints();
}

async function loadEndpoints() {
  $('endpoints').tBodies[0].replaceChildren();
  message('endpoints-error', null);
  const application = $('endpoints-application').value.trim();
  try {
    const rows = await allPages('/v1/endpoints', application ? { application } : {});
    $('endpoints').tBodies[0].replaceChildren(...rows.map(endpointRow));
    show('endpoints-empty', rows.length === 0);
  } catch (e) {
    // the only filter is the application: an unknown one (the API's 404) is said beside it
    if (e instanceof ApiError && (e.status === 400 || e.status === 404)) message('endpoints-error', e.message);
    else await guarded(() => Promise.reject(e));
  }
}

async function openEndpoint(id) {
  selectView('endpoint-view', 'tab-endpoints');
  $('endpoint-id').textContent = id;
  for (const list of ['endpoint-fields', 'endpoint-health']) $(list).replaceChildren();
  $('endpoint-deliveries').tBodies[0].replaceChildren();
  await guarded(async () => {
    const e = await api('GET', '/v1/endpoints/' + encodeURIComponent(id));
    fieldList('endpoint-fields', [['URL', el('span', { class: 'mono endpoint-url' }, e.url)], ['Application', applicationLink(e.application)],
      ['Description', text(e.description)], ['Event types', e.event_types ? e.event_types.join(', ') : 'all'],
      ['Filter', e.filter ? el('pre', {}, JSON.stringify(e.filter, null, 2)) : '—'],
      ['Headers', Object.keys(e.headers).length ? el('pre', {}, Object.entries(e.headers).map(([k, v]) => k + ': ' + v).join('\n')) : '—'],
      ['Rate limit', e.rate_limit === null || e.rate_limit === undefined ? '—' : e.rate_limit + '/s'],
      ['Metadata', el('span', { class: 'mono' }, json(e.metadata))], ['Created', timeEl(e.created_at)]]);
    const h = e.health || {};
    fieldList('endpoint-health', [['State', endpointState(e)], ['Success rate', successRate(e.health)],
      ['Failures', text(h.failures)], ['Last success', timeEl(h.last_success_at)], ['Last failure', lastFailure(e.health)]]);
    const page = await api('GET', '/v1/deliveries?' + new URLSearchParams({ endpoint_id: id, limit: String(PAGE) }));
    $('endpoint-deliveries').tBodies[0].replaceChildren(...page.data.map((d) => el('tr', { class: 'endpoint-delivery', data: { id: d.id } },
      el('td', {}, deliveryLink(d.id)),
      el('td', {}, messageLink(d.message_id)),
      el('td', { class: 'delivery-status' }, statusBadge(d.status)),
      el('td', {}, timeEl(d.scheduled_for)),
      el('td', {}, String(d.attempt_count)),
      el('td', { class: 'wrap last-error' }, text(d.last_error)))));
    show('endpoint-deliveries-empty', page.data.length === 0);
  });
}

// ---- event types ----

async function openEventTypes() {
  selectView('event-types-view', 'tab-event-types');
  $('event-types').tBodies[0].replaceChildren();
  await guarded(async () => {
    const rows = await allPages('/v1/event-types');
    $('event-types').tBodies[0].replaceChildren(...rows.map((t) => el('tr', { class: 'event-type', data: { name: t.name } },
      el('td', { class: 'mono event-type-name' }, t.name),
      el('td', { class: 'wrap' }, text(t.description)),
      el('td', {}, t.deprecated ? statusBadge('deprecated') : '—'),
      el('td', { class: 'wrap' }, t.schema ? el('pre', { class: 'event-schema' }, JSON.stringify(t.schema, null, 2)) : '—'),
      el('td', { class: 'wrap' }, t.example !== null && t.example !== undefined ? el('pre', { class: 'event-example' }, JSON.stringify(t.example, null, 2)) : '—'),
      el('td', {}, el('a', { class: 'event-type-messages', href: filterHash('#/messages', { event_type: t.name }) }, 'Messages of ' + t.name)))));
    show('event-types-empty', rows.length === 0);
  });
}
