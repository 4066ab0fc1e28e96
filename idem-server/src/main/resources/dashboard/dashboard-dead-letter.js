// Idem dashboard, part 3 of 7: the dead-letter queue, its filter, and replay of one, a selection, or all matching.
'use strict';

let dlq = { last: null, hasMore: false, filter: {} };
const selected = new Set();

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
  // ticked only while every row shown is selected; nothing to select in an empty queue
  const rows = document.querySelectorAll('#dlq tbody input.select').length;
  $('dlq-select-all').checked = rows > 0 && selected.size === rows;
  $('dlq-select-all').disabled = rows === 0;
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
      let answer;
      try {
        answer = await api('POST', '/v1/deliveries/replay', body, newKey());
      } catch (e) {
        if (!(e instanceof ApiError) || (e.status !== 404 && e.status !== 405)) throw e;
        answer = { replayed: await replayOneByOne(filter) };
      }
      const replayed = answer.replayed;
      let note = 'Replayed ' + replayed + ' dead ' + (replayed === 1 ? 'delivery' : 'deliveries') + ' matching the filter.';
      // what the bulk replay left dead, and why (docs/api.md, "Bulk recovery")
      if (answer.skipped_schedule_paused) note += ' Skipped ' + answer.skipped_schedule_paused + ' whose schedule is paused: resume it, then replay again.';
      if (answer.skipped_schedule_deleted) note += ' Skipped ' + answer.skipped_schedule_deleted + ' whose schedule was deleted.';
      if (answer.held_endpoint_disabled) note += ' ' + answer.held_endpoint_disabled + ' of them wait for their disabled endpoint to be enabled.';
      if (answer.skipped_endpoint_deleted) note += ' Skipped ' + answer.skipped_endpoint_deleted + ' whose endpoint was deleted.';
      message('notice', note);
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
