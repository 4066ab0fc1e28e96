package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Source;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.EventType;
import dev.idem.core.fanout.FanOutTarget;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.StripeSignatureVerifier;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The body of {@code POST /v1/sources} and {@code PATCH /v1/sources/{id}}, validated: every refusal is a 400 naming the
 * field. A PATCH gives any subset; {@code verify.secret} in a PATCH rotates the secret (the old one verifies 24 h more).
 */
final class SourceFields {
    static final Set<String> FIELDS = Set.of("name", "verify", "destination", "dedup", "rate_limit");
    static final Set<String> VERIFY_FIELDS = Set.of("scheme", "secret", "header", "encoding", "tolerance");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
    static final Duration MAX_TOLERANCE = Duration.ofHours(1);

    private final ScheduleParser endpoints;

    SourceFields(ScheduleParser endpoints) {
        this.endpoints = endpoints;
    }

    /** A new source from a create body. */
    Source create(StoreTx tx, String id, dev.idem.core.Tenant tenant, ObjectNode body, Instant now) {
        Fields f = Fields.of(body).only(FIELDS);
        Fields v = f.object("verify");
        if (v == null) throw ApiException.invalid("parameter_missing", "verify", "Missing required parameter: verify");
        v.only(VERIFY_FIELDS);
        String scheme = scheme(v.requiredString("scheme", 32));
        String secret = secret(v, scheme);
        Source s = new Source(
                id,
                tenant,
                f.requiredString("name", 200),
                scheme,
                secret,
                java.util.List.of(),
                v.string("header", 128),
                v.string("encoding", 16),
                tolerance(v),
                destination(tx, tenant, f),
                dedup(f),
                rateLimit(f, Source.DEFAULT_RATE_LIMIT),
                false,
                now,
                now);
        return normalised(s, v.has("encoding"), v.has("tolerance"));
    }

    /** The source after a PATCH body. */
    Source patch(StoreTx tx, Source s, ObjectNode body, Instant now) {
        Fields f = Fields.of(body).only(FIELDS);
        Fields v = f.object("verify");
        String name = f.has("name") ? f.requiredString("name", 200) : s.name();
        String destination = f.has("destination") ? destination(tx, s.tenant(), f) : s.destination();
        String dedup = f.has("dedup") ? dedup(f) : s.dedup();
        int rateLimit = rateLimit(f, s.rateLimit());
        Source out = s;
        boolean encodingGiven = false;
        boolean toleranceGiven = false;
        if (v != null) {
            v.only(VERIFY_FIELDS);
            String scheme = v.has("scheme") ? scheme(v.requiredString("scheme", 32)) : s.scheme();
            String header = v.has("header") ? v.string("header", 128) : scheme.equals(s.scheme()) ? s.header() : null;
            String encoding =
                    v.has("encoding") ? v.string("encoding", 16) : scheme.equals(s.scheme()) ? s.encoding() : null;
            Duration tolerance = v.has("tolerance") ? tolerance(v) : s.tolerance();
            encodingGiven = v.has("encoding");
            toleranceGiven = v.has("tolerance");
            out = out.withSettings(name, scheme, header, encoding, tolerance, destination, dedup, rateLimit, now);
            if (v.has("secret")) out = out.withSecret(secret(v, scheme), now);
            else if (!scheme.equals(s.scheme())) secretProblem(scheme, s.secret(), "verify.scheme");
        } else {
            out = out.withSettings(
                    name, s.scheme(), s.header(), s.encoding(), s.tolerance(), destination, dedup, rateLimit, now);
        }
        return normalised(out, encodingGiven, toleranceGiven);
    }

    /** The {@code rate_limit} given (ingest requests a second per node), or {@code otherwise}. */
    private static int rateLimit(Fields f, int otherwise) {
        Integer n = f.integer("rate_limit", 1, 100_000);
        return n == null ? otherwise : n;
    }

    private static String scheme(String s) {
        if (!SourceSchemes.ALL.contains(s))
            throw ApiException.invalid(
                    "parameter_invalid",
                    "verify.scheme",
                    "verify.scheme must be one of stripe, github, standard_webhooks, hmac_sha256");
        return s;
    }

    private static String secret(Fields v, String scheme) {
        String secret = v.requiredString("secret", 1024);
        secretProblem(scheme, secret, "verify.secret");
        return secret;
    }

    private static void secretProblem(String scheme, String secret, String param) {
        String problem = SourceSchemes.secretProblem(scheme, secret);
        if (problem != null) throw ApiException.invalid("parameter_invalid", param, problem);
    }

    private static Duration tolerance(Fields v) {
        Duration d = v.duration("tolerance", Duration.ofSeconds(1), MAX_TOLERANCE);
        return d == null ? StripeSignatureVerifier.DEFAULT_TOLERANCE : d;
    }

    /**
     * {@code destination}: a URL, checked as a schedule's endpoint, or a fan-out target {@code {"event_type": name or
     * {"from": "header:<name>" | "json:<pointer>"}, "application"?}}, kept in its {@link FanOutTarget#uri()} form with
     * the application resolved to its id (it must exist and not be deleted).
     */
    private String destination(StoreTx tx, dev.idem.core.Tenant tenant, Fields f) {
        JsonNode n = f.raw("destination");
        if (n == null || !n.isObject()) return endpoints.endpoint(f, "destination");
        Fields t = f.object("destination").only(Set.of("event_type", "application"));
        JsonNode type = t.raw("event_type");
        String eventType = null;
        String from = null;
        if (type != null && type.isObject()) {
            from = t.object("event_type").only(Set.of("from")).requiredString("from", 300);
            FanOutTarget.fromProblem(from).ifPresent(p -> {
                throw ApiException.invalid("parameter_invalid", "destination.event_type.from", p);
            });
        } else {
            eventType = t.requiredString("event_type", EventType.MAX_NAME_LENGTH);
            EventType.nameProblem(eventType).ifPresent(p -> {
                throw ApiException.invalid(
                        "parameter_invalid", "destination.event_type", "destination.event_type: " + p);
            });
        }
        String application = t.string("application", Application.MAX_UID_LENGTH);
        String applicationId = application == null
                ? null
                : FanoutFields.liveApplication(tx, tenant, application, "destination.application")
                        .id();
        return new FanOutTarget(eventType, from, applicationId).uri();
    }

    private static String dedup(Fields f) {
        String d = f.string("dedup", 300);
        if (d == null || d.equals("auto") || d.equals("none")) return d == null ? "auto" : d;
        if (d.startsWith("header:") && HEADER_NAME.matcher(d.substring(7)).matches()) return d;
        if (d.startsWith("json:")) {
            try {
                if (d.substring(5).startsWith("/")) {
                    JsonPointer.compile(d.substring(5));
                    return d;
                }
            } catch (IllegalArgumentException e) {
                // answered below
            }
        }
        throw ApiException.invalid(
                "parameter_invalid",
                "dedup",
                "dedup must be auto, none, header:<header name> or json:<JSON pointer such as /id>, got '" + d + "'");
    }

    /** Fills the defaults of the scheme and refuses settings that belong to another scheme. */
    private static Source normalised(Source s, boolean encodingGiven, boolean toleranceGiven) {
        boolean hmac = s.scheme().equals(SourceSchemes.HMAC_SHA256);
        if (hmac && s.header() == null)
            throw ApiException.invalid(
                    "parameter_missing",
                    "verify.header",
                    "verify.header (the signature header's name) is required for hmac_sha256");
        if (!hmac && s.header() != null)
            throw ApiException.invalid(
                    "parameter_invalid",
                    "verify.header",
                    "verify.header applies to hmac_sha256 only; " + s.scheme() + " has its own header");
        if (hmac && !HEADER_NAME.matcher(s.header()).matches())
            throw ApiException.invalid(
                    "parameter_invalid", "verify.header", "'" + s.header() + "' is not a valid header name");
        String encoding = s.encoding();
        if (!hmac && encodingGiven)
            throw ApiException.invalid(
                    "parameter_invalid", "verify.encoding", "verify.encoding applies to hmac_sha256 only");
        if (!hmac) encoding = null;
        else if (encoding == null) encoding = "hex";
        else if (!encoding.equals("hex") && !encoding.equals("base64"))
            throw ApiException.invalid("parameter_invalid", "verify.encoding", "verify.encoding must be hex or base64");
        boolean timed = s.scheme().equals(SourceSchemes.STRIPE) || s.scheme().equals(SourceSchemes.STANDARD_WEBHOOKS);
        if (!timed && toleranceGiven)
            throw ApiException.invalid(
                    "parameter_invalid",
                    "verify.tolerance",
                    "verify.tolerance applies to stripe and standard_webhooks, whose signatures carry a timestamp");
        return new Source(
                s.id(),
                s.tenant(),
                s.name(),
                s.scheme(),
                s.secret(),
                s.retiredSecrets(),
                s.header(),
                encoding,
                s.tolerance(),
                s.destination(),
                s.dedup(),
                s.rateLimit(),
                s.deleted(),
                s.createdAt(),
                s.updatedAt());
    }
}
