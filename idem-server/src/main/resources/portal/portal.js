// The customer portal. It holds no key: a portal link's token arrives in the URL fragment (never sent to a server),
// is exchanged once for a session token kept in this tab (sessionStorage), and every request sends that session in
// the Authorization header. The API decides what the session may do; this page only leaves out the controls the
// session's capabilities do not grant. Text is always set as text, never as markup.
"use strict";
(function () {
  const SESSION = "idem.portal.session";
  const $ = (id) => document.getElementById(id);
  let session = null;
  let catalogue = [];
  let editing = null;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }

  function can(capability) {
    return session != null && session.capabilities.includes(capability);
  }

  /** A link that cannot be used (revoked, expired, unknown) gets one clear page instead of failed requests. */
  function ended(error) {
    sessionStorage.removeItem(SESSION);
    $("loading").hidden = true;
    $("app").hidden = true;
    $("ended").hidden = false;
    const code = error && error.code;
    let title = "This portal link cannot be used";
    let message = "Open the portal with the link you were given.";
    if (code === "portal_access_revoked") {
      title = "This portal link has been revoked";
      message = "Ask for a new link to manage your webhooks.";
    } else if (code === "portal_access_expired" || code === "portal_session_expired") {
      title = "This portal link has expired";
      message = "Ask for a new link, or open the link you were given again if it is still valid.";
    } else if (code === "invalid_portal_token") {
      message = "The link is not valid. Ask for a new one.";
    }
    $("ended-title").textContent = title;
    $("ended-message").textContent = message;
    document.title = title;
  }

  class Ended extends Error {}

  async function api(method, path, body) {
    const headers = { Authorization: "Bearer " + sessionStorage.getItem(SESSION) };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const r = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      referrerPolicy: "no-referrer",
      credentials: "omit",
    });
    const json = await r.json().catch(() => null);
    if (r.status === 401) {
      ended(json && json.error);
      throw new Ended();
    }
    return { status: r.status, ok: r.ok, body: json };
  }

  function notice(text) {
    $("notice").textContent = text;
  }

  // ---- opening

  async function open() {
    const m = /^#token=(pt_[0-9A-Za-z]+)$/.exec(location.hash);
    if (m) {
      // out of the address bar, the history and any bookmark before anything else happens
      history.replaceState(null, "", location.pathname + location.search);
      const r = await fetch("/v1/portal/sessions", {
        method: "POST",
        headers: { Authorization: "Bearer " + m[1], "Content-Type": "application/json" },
        body: "{}",
        cache: "no-store",
        referrerPolicy: "no-referrer",
        credentials: "omit",
      });
      const json = await r.json().catch(() => null);
      if (!r.ok) return ended(json && json.error);
      sessionStorage.setItem(SESSION, json.token);
      // the page of this link's project, served with the project's embedding policy
      location.replace("/portal/a/" + encodeURIComponent(json.access));
      return;
    }
    if (!sessionStorage.getItem(SESSION)) return ended(null);
    const r = await api("GET", "/v1/portal/session");
    if (!r.ok) return ended(r.body && r.body.error);
    session = r.body;
    brand(session.portal, session.application);
    $("loading").hidden = true;
    $("app").hidden = false;
    $("add-endpoint").hidden = !can("manage_endpoints");
    $("nav-endpoints").addEventListener("click", () => show("endpoints"));
    $("nav-event-types").addEventListener("click", () => show("event-types"));
    $("nav-messages").addEventListener("click", () => show("messages"));
    $("add-endpoint").addEventListener("click", () => startForm(null));
    $("ep-cancel").addEventListener("click", closeForm);
    $("endpoint-form").addEventListener("submit", save);
    $("filter-try").addEventListener("click", tryFilter);
    await loadCatalogue();
    window.IdemPortal.messages.install();
    await show("endpoints");
  }

  function brand(p, application) {
    const name = p.display_name || "Webhooks";
    $("brand-name").textContent = name;
    document.title = name + " · " + (application.name || "Webhooks");
    if (p.primary_color) document.documentElement.style.setProperty("--primary", p.primary_color);
    if (p.logo_url) {
      const img = $("brand-logo");
      // shown only once it has loaded from that very URL
      img.addEventListener("load", () => (img.hidden = false));
      img.addEventListener("error", () => (img.hidden = true));
      img.alt = name;
      img.referrerPolicy = "no-referrer";
      img.src = p.logo_url;
    }
    if (p.support_url) {
      $("support-link").href = p.support_url;
      $("support-link").hidden = false;
    }
  }

  async function show(view) {
    for (const v of ["endpoints", "messages", "event-types"]) {
      $("view-" + v).hidden = v !== view;
      if (v === view) $("nav-" + v).setAttribute("aria-current", "page");
      else $("nav-" + v).removeAttribute("aria-current");
    }
    notice("");
    if (view === "endpoints") await loadEndpoints();
    else if (view === "messages") await window.IdemPortal.messages.show();
    else renderCatalogue();
  }

  // ---- event types

  async function loadCatalogue() {
    const r = await api("GET", "/v1/event-types?limit=100");
    catalogue = r.ok ? r.body.data : [];
    const select = $("filter-try-type");
    select.replaceChildren();
    for (const t of catalogue.filter((t) => t.example != null))
      select.append(el("option", { value: t.name, text: t.name }));
  }

  function renderCatalogue() {
    const list = $("type-list");
    list.replaceChildren();
    for (const t of catalogue) {
      list.append(
        el(
          "li",
          { class: "event-type", "data-name": t.name },
          el("h3", { class: "url", text: t.name + (t.deprecated ? " (deprecated)" : "") }),
          t.description ? el("p", { text: t.description }) : null,
          t.schema != null ? el("details", {}, el("summary", { text: "Schema" }), el("pre", { text: JSON.stringify(t.schema, null, 2) })) : null,
          t.example != null ? el("details", {}, el("summary", { text: "Example" }), el("pre", { text: JSON.stringify(t.example, null, 2) })) : null,
        ),
      );
    }
    if (catalogue.length === 0) list.append(el("li", { text: "No event types yet." }));
  }

  // ---- endpoints

  async function loadEndpoints() {
    const r = await api("GET", "/v1/endpoints?limit=100&application=" + encodeURIComponent(session.application.id));
    const list = $("endpoint-list");
    list.replaceChildren();
    const endpoints = r.ok ? r.body.data.filter((e) => e.status !== "deleted") : [];
    for (const e of endpoints) list.append(card(e));
    $("no-endpoints").hidden = endpoints.length > 0;
  }

  function card(e) {
    const li = el("li", { class: "endpoint", "data-id": e.id });
    li.append(el("p", { class: "url", text: e.url }));
    if (e.description) li.append(el("p", { text: e.description }));
    const status = el("span", { class: "badge " + e.status, text: e.status });
    const types = e.event_types == null ? "every event" : e.event_types.join(", ");
    li.append(el("p", { class: "meta" }, status, " · receives " + types + (e.filter != null ? " · filtered" : "")));
    if (e.health) li.append(el("p", { class: "meta health", text: health(e.health) }));
    const actions = el("div", { class: "actions" });
    if (can("manage_endpoints")) {
      actions.append(button("Edit", "edit", () => startForm(e)));
      actions.append(button(e.disabled ? "Enable" : "Disable", "toggle", () => toggle(e)));
      actions.append(button("Delete", "delete danger", () => remove(e)));
    }
    const secret = el("p", { class: "secret meta" });
    if (can("view_secrets")) actions.append(button("Reveal signing secret", "secret-reveal", () => reveal(e, secret)));
    if (can("rotate_secrets")) actions.append(button("Rotate signing secret", "secret-rotate", () => rotate(e, secret)));
    if (actions.childElementCount > 0) li.append(actions);
    li.append(secret);
    if (can("replay")) li.append(window.IdemPortal.messages.replaySince(e));
    return li;
  }

  /** The API's health of an endpoint: success rate over the last day or two, the last failure and its cause. */
  function health(h) {
    const parts = [];
    if (h.success_rate != null) parts.push("success rate " + Math.round(h.success_rate * 100) + "% of " + h.attempts + " attempts");
    if (h.failing_since) parts.push("failing since " + new Date(h.failing_since).toLocaleString());
    if (h.last_failure_at) parts.push("last failure " + new Date(h.last_failure_at).toLocaleString() + (h.last_failure ? ": " + h.last_failure : ""));
    return parts.join(" · ") || "no deliveries yet";
  }

  function button(text, cls, onClick) {
    const b = el("button", { type: "button", class: cls, text });
    b.addEventListener("click", onClick);
    return b;
  }

  async function toggle(e) {
    const r = await api("PATCH", "/v1/endpoints/" + encodeURIComponent(e.id), { disabled: !e.disabled });
    notice(r.ok ? (e.disabled ? "Endpoint enabled." : "Endpoint disabled.") : r.body.error.message);
    await loadEndpoints();
  }

  async function remove(e) {
    if (!window.confirm("Delete the endpoint " + e.url + "? It will receive nothing more.")) return;
    const r = await api("DELETE", "/v1/endpoints/" + encodeURIComponent(e.id));
    notice(r.ok ? "Endpoint deleted." : r.body.error.message);
    await loadEndpoints();
  }

  async function reveal(e, target) {
    const r = await api("GET", "/v1/endpoints/" + encodeURIComponent(e.id) + "/secret");
    target.textContent = r.ok ? "Signing secret: " + r.body.secret : r.body.error.message;
  }

  async function rotate(e, target) {
    if (!window.confirm("Rotate the signing secret? The old one keeps signing beside the new for 24 hours.")) return;
    const r = await api("POST", "/v1/endpoints/" + encodeURIComponent(e.id) + "/secret/rotate", {});
    target.textContent = r.ok ? "New signing secret: " + r.body.secret : r.body.error.message;
  }

  // ---- the add / edit form

  const FIELDS = ["url", "description", "event_types", "filter", "form"];

  function clearErrors() {
    for (const f of FIELDS) $("err-" + f).textContent = "";
    for (const id of ["ep-url", "ep-description", "ep-filter"]) $(id).removeAttribute("aria-invalid");
  }

  /** The API's 400 next to the field it names (event_types[1] and filter.a.$gte belong to their field). */
  function showError(error) {
    const param = (error.param || "").split(/[.[]/)[0];
    const field = FIELDS.includes(param) ? param : "form";
    $("err-" + field).textContent = error.message;
    const input = { url: "ep-url", description: "ep-description", filter: "ep-filter" }[field];
    if (input) {
      $(input).setAttribute("aria-invalid", "true");
      $(input).focus();
    }
  }

  function startForm(e) {
    editing = e;
    clearErrors();
    $("form-title").textContent = e ? "Edit endpoint" : "Add an endpoint";
    $("ep-url").value = e ? e.url : "";
    $("ep-description").value = e && e.description ? e.description : "";
    $("ep-filter").value = e && e.filter != null ? JSON.stringify(e.filter, null, 2) : "";
    const boxes = $("ep-type-boxes");
    boxes.replaceChildren();
    for (const t of catalogue) {
      const box = el("input", { type: "checkbox", value: t.name, id: "type-" + t.name });
      box.checked = e != null && e.event_types != null && e.event_types.includes(t.name);
      boxes.append(el("label", { for: "type-" + t.name }, box, t.name));
    }
    $("filter-result").textContent = "";
    $("endpoint-form").hidden = false;
    $("ep-url").focus();
  }

  function closeForm() {
    editing = null;
    $("endpoint-form").hidden = true;
  }

  /** The filter as typed: null when empty, undefined (after saying why) when it is not JSON. */
  function filterValue() {
    const text = $("ep-filter").value.trim();
    if (text === "") return null;
    try {
      return JSON.parse(text);
    } catch (err) {
      showError({ param: "filter", message: "The filter is not JSON: " + err.message });
      return undefined;
    }
  }

  async function save(event) {
    event.preventDefault();
    clearErrors();
    const filter = filterValue();
    if (filter === undefined) return;
    const ticked = [...$("ep-type-boxes").querySelectorAll("input:checked")].map((b) => b.value);
    // patterns an endpoint has beyond the catalogue (report.*) are kept as they are
    const known = new Set(catalogue.map((t) => t.name));
    const kept = editing && editing.event_types ? editing.event_types.filter((p) => !known.has(p)) : [];
    const types = ticked.concat(kept);
    const body = {
      url: $("ep-url").value.trim(),
      description: $("ep-description").value.trim() || null,
      event_types: types.length ? types : null,
      filter,
    };
    let r;
    if (editing) r = await api("PATCH", "/v1/endpoints/" + encodeURIComponent(editing.id), body);
    else {
      body.application = session.application.id;
      r = await api("POST", "/v1/endpoints", body);
    }
    if (!r.ok) return showError(r.body.error);
    notice(editing ? "Endpoint saved." : "Endpoint added.");
    closeForm();
    await loadEndpoints();
  }

  async function tryFilter() {
    $("err-filter").textContent = "";
    $("filter-result").textContent = "";
    const filter = filterValue();
    if (filter === undefined) return;
    if (filter === null) return ($("filter-result").textContent = "No filter: every event of the chosen types is sent.");
    const type = catalogue.find((t) => t.name === $("filter-try-type").value);
    if (!type) return ($("filter-result").textContent = "No event type has an example to try.");
    const r = await api("POST", "/v1/filters/test", { filter, payload: type.example });
    if (!r.ok) return showError(r.body.error);
    $("filter-result").textContent = r.body.matches
      ? "The example of " + type.name + " matches: it would be sent."
      : "The example of " + type.name + " does not match: it would not be sent.";
  }

  // what the messages view (portal-messages.js) shares with this script
  window.IdemPortal = {
    $,
    el,
    api,
    can,
    button,
    notice,
    session: () => session,
    catalogue: () => catalogue,
  };

  document.addEventListener("DOMContentLoaded", () =>
    open().catch((err) => {
      if (!(err instanceof Ended)) {
        $("loading").textContent = "The portal could not load. Try again in a moment.";
      }
    }),
  );
})();
