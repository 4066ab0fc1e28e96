// Idem dashboard, part 5 of 7: inbound sources (SPEC section 2), each with its ingest URL and its recent events,
// which are deliveries of that source (GET /v1/deliveries?source_id=…).
'use strict';

async function openSources() {
  selectView('sources-view', 'tab-sources');
  $('sources').tBodies[0].replaceChildren();
  await guarded(async () => {
    // a project has few sources: every page (allPages, in dashboard-fanout.js), so the list is whole
    const rows = await allPages('/v1/sources');
    $('sources').tBodies[0].replaceChildren(...rows.map(sourceRow));
    show('sources-empty', rows.length === 0);
  });
}

function sourceLink(id) {
  return el('a', { class: 'mono source-link', href: '#/sources/' + encodeURIComponent(id) }, id);
}

function sourceRow(s) {
  return el('tr', { data: { id: s.id } },
    el('td', { class: 'source-name' }, s.name),
    el('td', {}, sourceLink(s.id)),
    el('td', {}, statusBadge(s.status)),
    el('td', { class: 'mono' }, s.verify.scheme),
    el('td', { class: 'mono wrap ingest-url' }, s.ingest_url),
    el('td', { class: 'mono wrap' }, s.destination),
    el('td', {}, timeEl(s.created_at)));
}

async function openSource(id) {
  selectView('source-view', 'tab-sources');
  $('source-id').textContent = id;
  $('source-fields').replaceChildren();
  $('source-events').tBodies[0].replaceChildren();
  await guarded(async () => {
    const s = await api('GET', '/v1/sources/' + encodeURIComponent(id));
    fieldList('source-fields', [['Name', s.name], ['Status', statusBadge(s.status)],
      ['Ingest URL', el('span', { class: 'mono ingest-url' }, s.ingest_url)], ['Verify', s.verify.scheme + (s.verify.header ? ' · header ' + s.verify.header : '')],
      ['Previous secret verifies until', timeEl(s.verify.previous_secret_expires_at)], ['Destination', el('span', { class: 'mono' }, s.destination)],
      ['Dedup', text(s.dedup)], ['Rate limit', s.rate_limit === null || s.rate_limit === undefined ? '—' : s.rate_limit + '/s'],
      ['Created', timeEl(s.created_at)]]);
    const page = await api('GET', '/v1/deliveries?' + new URLSearchParams({ source_id: id, limit: String(PAGE) }));
    $('source-events').tBodies[0].replaceChildren(...page.data.map((d) => el('tr', { class: 'source-event', data: { id: d.id } },
      el('td', {}, deliveryLink(d.id)),
      el('td', { class: 'delivery-status' }, statusBadge(d.status)),
      el('td', {}, timeEl(d.scheduled_for)),
      el('td', {}, String(d.attempt_count)),
      el('td', { class: 'wrap last-error' }, text(d.last_error)))));
    show('source-events-empty', page.data.length === 0);
  });
}
