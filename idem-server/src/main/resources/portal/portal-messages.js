// The portal's messages view: the messages sent to this application, each with its delivery to every endpoint, each
// delivery's attempts (the request as sent, every response), replay (with the `replay` capability) and a test event
// sent to one endpoint (with `send_test`). It uses the helpers portal.js shares; the API decides what the session
// may do, this page only leaves out the controls its capabilities do not grant. Text is always set as text.
"use strict";
(function () {
  const P = window.IdemPortal;
  const { $, el, api, can, button, notice } = P;
  const PAGE = 20;
  let endpoints = new Map();
  let after = null;

  function install() {
    $("test-form").hidden = !can("send_test");
    $("test-form").addEventListener("submit", sendTest);
    $("message-search").addEventListener("submit", (e) => {
      e.preventDefault();
      search(true);
    });
    $("more-messages").addEventListener("click", () => search(false));
    const types = $("search-type");
    const examples = $("test-type");
    for (const t of P.catalogue()) {
      types.append(el("option", { value: t.name, text: t.name }));
      if (t.example != null) examples.append(el("option", { value: t.name, text: t.name }));
    }
  }

  async function show() {
    const r = await api(
      "GET",
      "/v1/endpoints?limit=100&application=" + encodeURIComponent(P.session().application.id),
    );
    endpoints = new Map((r.ok ? r.body.data : []).map((e) => [e.id, e]));
    const select = $("test-endpoint");
    select.replaceChildren();
    for (const e of endpoints.values())
      if (e.status !== "deleted") select.append(el("option", { value: e.id, text: e.url }));
    await search(true);
  }

  /** The instant of a datetime-local field (the browser's time zone), or undefined after saying why not. */
  function instant(field) {
    const v = $("search-" + field).value;
    if (!v) return null;
    const d = new Date(v);
    if (isNaN(d.getTime())) {
      $("err-search-" + field).textContent = "Not a date and time.";
      return undefined;
    }
    return d.toISOString();
  }

  const SEARCH_FIELDS = ["event_type", "delivery_status", "since", "until"];

  /**
   * One page of the messages the search chooses. Every filter (event type, delivery status, time) is applied by the
   * API in the store, so each page is full while more remain and "More" continues exactly where it stopped; the API's
   * 400 for a filter is shown next to that filter.
   */
  async function search(fresh) {
    for (const f of SEARCH_FIELDS) $("err-search-" + f).textContent = "";
    const since = instant("since");
    const until = instant("until");
    if (since === undefined || until === undefined) return;
    if (fresh) {
      after = null;
      $("message-list").replaceChildren();
    }
    const q = new URLSearchParams({ application: P.session().application.id, limit: String(PAGE) });
    if ($("search-type").value) q.set("event_type", $("search-type").value);
    if ($("search-status").value) q.set("delivery_status", $("search-status").value);
    if (since) q.set("since", since);
    if (until) q.set("until", until);
    if (after) q.set("starting_after", after);
    const r = await api("GET", "/v1/messages?" + q);
    if (!r.ok) {
      const param = r.body.error.param;
      if (SEARCH_FIELDS.includes(param)) $("err-search-" + param).textContent = r.body.error.message;
      else notice(r.body.error.message);
      return;
    }
    const page = r.body.data;
    after = page.length ? page[page.length - 1].id : after;
    // each message with its deliveries to every endpoint
    const full = await Promise.all(page.map((m) => api("GET", "/v1/messages/" + encodeURIComponent(m.id))));
    for (const f of full) if (f.ok) $("message-list").append(messageCard(f.body));
    $("more-messages").hidden = !r.body.has_more;
    $("no-messages").hidden = $("message-list").childElementCount > 0;
  }

  function messageCard(m) {
    const li = el("li", { class: "message", "data-id": m.id });
    li.append(el("h3", { class: "url", text: m.event_type }));
    li.append(el("p", { class: "meta", text: m.id + " · sent " + new Date(m.created_at).toLocaleString() }));
    li.append(el("details", {}, el("summary", { text: "Payload" }), el("pre", { text: JSON.stringify(m.payload, null, 2) })));
    const list = el("ul", { class: "deliveries", "aria-label": "Deliveries of " + m.id });
    for (const d of m.endpoint_deliveries) list.append(deliveryItem(d));
    if (m.endpoint_deliveries.length === 0) list.append(el("li", { text: "No endpoint was subscribed to it." }));
    li.append(list);
    return li;
  }

  function deliveryItem(d) {
    const li = el("li", { class: "delivery", "data-id": d.id });
    const e = endpoints.get(d.endpoint_id);
    li.append(el("p", { class: "url", text: e ? e.url : d.endpoint_id }));
    const status = el("span", { class: "badge " + d.status, text: d.status });
    const attempts = d.attempt_count + (d.attempt_count === 1 ? " attempt" : " attempts");
    li.append(el("p", { class: "meta" }, status, " · " + attempts + (d.last_error ? " · " + d.last_error : "")));
    const details = el("div", { class: "attempt-details" });
    details.hidden = true;
    const actions = el("div", { class: "actions" });
    const toggle = button("Show attempts", "show-attempts", () => attemptsOf(d, details, toggle));
    toggle.setAttribute("aria-expanded", "false");
    actions.append(toggle);
    if (can("replay") && (d.status === "succeeded" || d.status === "dead"))
      actions.append(button("Replay", "replay", () => replay(d, li)));
    li.append(actions, details);
    return li;
  }

  async function attemptsOf(d, target, toggle) {
    if (!target.hidden) {
      target.hidden = true;
      toggle.setAttribute("aria-expanded", "false");
      toggle.textContent = "Show attempts";
      return;
    }
    const r = await api("GET", "/v1/deliveries/" + encodeURIComponent(d.id));
    target.replaceChildren();
    if (!r.ok) target.append(el("p", { class: "error", text: r.body.error.message }));
    else target.append(...attemptViews(r.body));
    target.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
    toggle.textContent = "Hide attempts";
  }

  function attemptViews(d) {
    const out = [];
    const req = d.request;
    if (req) {
      const headers = Object.entries(req.headers || {})
        .map(([k, v]) => k + ": " + v)
        .join("\n");
      const test = Object.keys(req.headers || {}).some((k) => k.toLowerCase() === "idem-test");
      out.push(
        el("h4", { text: "Request (attempt " + req.attempt + ")" }),
        test ? el("p", { class: "meta test-mark", text: "A test event" }) : null,
        el("pre", { class: "request", text: req.method + " " + req.url + "\n" + headers + "\n\n" + req.body }),
      );
    }
    const list = el("ol", { class: "attempts" });
    for (const a of d.attempts || []) {
      const outcome = a.status_code != null ? "HTTP " + a.status_code : a.error || "no answer";
      const item = el("li", { class: "attempt" });
      item.append(el("p", { class: "meta", text: new Date(a.started_at).toLocaleString() + " · " + outcome + " · " + a.duration_ms + " ms" }));
      if (a.error && a.status_code != null) item.append(el("p", { class: "meta", text: a.error }));
      if (a.response_body) item.append(el("pre", { class: "response", text: a.response_body }));
      list.append(item);
    }
    out.push(el("h4", { text: "Responses" }), list.childElementCount ? list : el("p", { text: "Not attempted yet." }));
    return out.filter((x) => x != null);
  }

  async function replay(d, li) {
    const r = await api("POST", "/v1/deliveries/" + encodeURIComponent(d.id) + "/replay", {});
    if (!r.ok) return notice(r.body.error.message);
    notice("The delivery will be sent again.");
    li.replaceWith(deliveryItem(r.body));
  }

  /** The value of a datetime-local field for instant d, in the browser's time zone. */
  function localInput(d) {
    return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  }

  /**
   * "Replay failed deliveries since…" on an endpoint's card: the API's bulk replay of the endpoint's dead deliveries
   * that went dead since the time chosen (24 hours back to start with). Drawn only with the `replay` capability.
   */
  function replaySince(e) {
    const id = "replay-since-" + e.id;
    const input = el("input", { id, type: "datetime-local", "aria-describedby": id + "-err" });
    input.value = localInput(new Date(Date.now() - 24 * 3600 * 1000));
    const error = el("p", { class: "error", id: id + "-err", "aria-live": "polite" });
    const form = el(
      "form",
      { class: "replay-since", novalidate: "", "aria-label": "Replay failed deliveries of " + e.url },
      el("label", { for: id, text: "Replay failed deliveries since" }),
      input,
      " ",
      el("button", { type: "submit", class: "replay-since-go", text: "Replay failed deliveries" }),
      error,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      const since = new Date(input.value);
      if (!input.value || isNaN(since.getTime())) return (error.textContent = "Not a date and time.");
      const r = await api("POST", "/v1/deliveries/replay", {
        status: "dead",
        endpoint_id: e.id,
        since: since.toISOString(),
      });
      if (!r.ok) return (error.textContent = r.body.error.message);
      const n = r.body.replayed;
      notice(n === 0 ? "No failed delivery to replay since then." : "Replayed " + n + " failed " + (n === 1 ? "delivery." : "deliveries."));
    });
    return form;
  }

  async function sendTest(event) {
    event.preventDefault();
    for (const f of ["id", "event_type", "form"]) $("err-test-" + f).textContent = "";
    const id = $("test-endpoint").value;
    if (!id) return ($("err-test-id").textContent = "Add an endpoint first.");
    const r = await api("POST", "/v1/endpoints/" + encodeURIComponent(id) + "/send-test", {
      event_type: $("test-type").value,
    });
    if (!r.ok) {
      const field = ["id", "event_type"].includes(r.body.error.param) ? r.body.error.param : "form";
      $("err-test-" + field).textContent = r.body.error.message;
      return;
    }
    notice("Test event " + r.body.id + " sent.");
    await search(true);
  }

  P.messages = { install, show, replaySince };
})();
