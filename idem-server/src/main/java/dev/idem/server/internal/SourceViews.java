package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Durations;
import dev.idem.core.Source;

/** The JSON shape of a source: never its secrets, only whether a previous one still verifies and until when. */
final class SourceViews {
    private SourceViews() {}

    static ObjectNode source(Source s, String baseUrl) {
        ObjectNode o = Json.object();
        o.put("id", s.id());
        o.put("object", "source");
        o.put("livemode", s.tenant().mode() == dev.idem.core.Mode.LIVE);
        o.put("name", s.name());
        o.put("status", s.deleted() ? "deleted" : "active");
        o.put("ingest_path", "/in/" + s.id());
        o.put("ingest_url", baseUrl + "/in/" + s.id());
        ObjectNode v = o.putObject("verify");
        v.put("scheme", s.scheme());
        if (s.header() != null) v.put("header", s.header());
        if (s.encoding() != null) v.put("encoding", s.encoding());
        if (s.scheme().equals(SourceSchemes.STRIPE) || s.scheme().equals(SourceSchemes.STANDARD_WEBHOOKS))
            v.put("tolerance", Durations.format(s.tolerance()));
        // the newest rotated-out secret's expiry: when the last of them stops verifying
        v.put(
                "previous_secret_expires_at",
                s.retiredSecrets().isEmpty()
                        ? null
                        : Json.time(s.retiredSecrets().get(0).expiresAt()));
        var target = dev.idem.core.fanout.FanOutTarget.of(s.destination());
        if (target.isPresent()) o.set("destination", Views.target(target.get()));
        else o.put("destination", s.destination());
        o.put("dedup", s.dedup());
        o.put("rate_limit", s.rateLimit());
        o.put("created_at", Json.time(s.createdAt()));
        o.put("updated_at", Json.time(s.updatedAt()));
        return o;
    }
}
