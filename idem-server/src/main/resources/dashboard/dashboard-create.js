// Idem dashboard, part 4 of 7: the create form, whose rule field previews its next occurrences while typing.
'use strict';

const PREVIEW_COUNT = 5;
let previewTimer = null;
let previewSeq = 0;

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
      message('preview-error', fieldMessage(e.param, e.message || 'HTTP ' + res.status));
      return;
    }
    message('preview-error', null);
    $('preview-list').replaceChildren(...body.occurrences.map((o) =>
      el('li', { class: 'occurrence' }, el('span', { class: 'mono' }, o.local), ' ' + (params.get('timezone') || 'default zone') + ' · ', timeEl(o.utc))));
    if (!body.occurrences.length) $('preview-list').append(el('li', { class: 'muted' }, 'No occurrence: the rule has ended.'));
    if (body.stopped_early) $('preview-list').append(el('li', { class: 'muted' }, 'The search stopped early: the rule is sparse, later occurrences may exist.'));
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
    go('#/schedules/' + encodeURIComponent(created.id), 'Schedule ' + created.id + ' created.');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return guarded(() => Promise.reject(e));
    message('create-error', fieldMessage(e.param, describe(e)));
  } finally {
    $('create-submit').disabled = false;
  }
}
