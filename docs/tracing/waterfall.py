#!/usr/bin/env python3
"""Renders one trace of an OTLP JSON file (what OpenTelemetry's OTLP file/JSON exporters write) as a static HTML
waterfall: one row a span, indented under its parent, a bar from its start to its end, its events as ticks, its links
named. Usage: waterfall.py TRACE.json OUT.html"""
import html
import json
import sys

KINDS = {0: "", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}


def value(v):
    for k in ("stringValue", "intValue", "boolValue", "doubleValue"):
        if k in v:
            return v[k]
    return ""


def spans_of(doc):
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            scope = ss.get("scope", {}).get("name", "")
            for s in ss.get("spans", []):
                s["scope"] = scope
                s["attrs"] = {a["key"]: value(a["value"]) for a in s.get("attributes", [])}
                yield s


def main(src, out):
    spans = list(spans_of(json.load(open(src))))
    by_id = {s["spanId"]: s for s in spans}
    children = {}
    for s in spans:
        parent = s.get("parentSpanId", "")
        children.setdefault(parent if parent in by_id else "", []).append(s)
    for c in children.values():
        c.sort(key=lambda s: int(s["startTimeUnixNano"]))
    t0 = min(int(s["startTimeUnixNano"]) for s in spans)
    t1 = max(int(s["endTimeUnixNano"]) for s in spans)
    width = max(t1 - t0, 1)
    rows = []

    def walk(s, depth):
        rows.append((s, depth))
        for c in children.get(s["spanId"], []):
            walk(c, depth + 1)

    for root in children.get("", []):
        walk(root, 0)
    short = {s["spanId"]: f"#{i + 1}" for i, (s, _) in enumerate(rows)}
    out_rows = []
    for i, (s, depth) in enumerate(rows):
        start = int(s["startTimeUnixNano"]) - t0
        dur = int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"])
        left, w = 100 * start / width, max(100 * dur / width, 0.15)
        err = s.get("status", {}).get("code") == 2
        a = s["attrs"]
        detail = []
        for k in ("http.response.status_code", "error.type", "idem.delivery.attempt", "idem.inbox.outcome", "url.full"):
            if k in a:
                detail.append(f"{k}={a[k]}")
        for link in s.get("links", []):
            detail.append("link → " + short.get(link["spanId"], link["spanId"][:8]))
        ticks = "".join(
            f'<span class="ev" style="left:{100 * (int(e["timeUnixNano"]) - t0) / width:.3f}%" '
            f'title="{html.escape(e["name"])}"></span>'
            for e in s.get("events", []))
        events = ", ".join(e["name"] for e in s.get("events", []))
        out_rows.append(
            f'<tr><td class="name" style="padding-left:{8 + 18 * depth}px">{short[s["spanId"]]} '
            f'<b>{html.escape(s["name"])}</b> <span class="kind">{KINDS.get(s.get("kind", 0), "")} · '
            f'{html.escape(s["scope"])}</span><div class="detail">{html.escape("  ".join(detail))}'
            f'{"<br>events: " + html.escape(events) if events else ""}</div></td>'
            f'<td class="lane"><span class="bar{" err" if err else ""}" style="left:{left:.3f}%;width:{w:.3f}%">'
            f'</span>{ticks}<span class="dur" style="left:{min(left + w, 88):.3f}%">{dur / 1e6:.1f} ms</span></td></tr>')
    trace_id = spans[0]["traceId"]
    page = f"""<!doctype html><meta charset="utf-8"><title>trace {trace_id}</title>
<style>
body{{font:13px/1.35 sans-serif;margin:16px;color:#222}} table{{border-collapse:collapse;width:100%}}
td{{border-bottom:1px solid #eee;vertical-align:top;padding:4px 6px}} td.name{{width:46%}}
.kind{{color:#777;font-size:11px}} .detail{{color:#555;font:11px monospace;margin-top:2px}}
td.lane{{position:relative}} .bar{{position:absolute;top:8px;height:12px;background:#4a86c5;border-radius:2px}}
.bar.err{{background:#d0543f}} .ev{{position:absolute;top:5px;width:2px;height:18px;background:#222}}
.dur{{position:absolute;top:22px;font-size:11px;color:#555;padding-left:4px}}
</style>
<h3>Trace {trace_id} — {len(spans)} spans, {width / 1e6:.0f} ms</h3>
<p>Rendered by docs/tracing/waterfall.py from the OTLP JSON of EndToEndTraceTest's trace. Bars: span durations on one
time axis (red: status ERROR); ticks: span events.</p>
<table>{''.join(out_rows)}</table>"""
    open(out, "w").write(page)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
