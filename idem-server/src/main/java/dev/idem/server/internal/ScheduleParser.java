package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.FlowControl;
import dev.idem.core.HeaderProfile;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Timing;
import dev.idem.engine.EndpointGuard;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Turns a {@code POST /v1/schedules} body into a validated {@link ScheduleDefinition}, or a 400 naming what to fix. */
public final class ScheduleParser {
    static final Set<String> CREATE_FIELDS = Set.of(
            "endpoint",
            "delay",
            "fire_at",
            "rrule",
            "cron",
            "timezone",
            "dtstart",
            "exdates",
            "until",
            "count",
            "catch_up",
            "payload",
            "body",
            "content_type",
            "headers",
            "event_type",
            "idempotency_key",
            "dedup_id",
            "retry",
            "timeout",
            "auto_pause_after",
            "header_profile",
            "metadata",
            "flow_control",
            "target");
    /**
     * The fields about one request, which a schedule with a {@code target} refuses (each endpoint's delivery uses that
     * endpoint's own): the endpoint first, as the usual mistake, and the first given is named.
     */
    private static final List<String> NOT_WITH_TARGET = List.of(
            "endpoint",
            "body",
            "content_type",
            "headers",
            "event_type",
            "idempotency_key",
            "retry",
            "timeout",
            "auto_pause_after",
            "header_profile",
            "flow_control");

    private static final Set<String> RETRY_FIELDS = Set.of("max_attempts", "initial_backoff", "max_backoff", "max_age");
    private static final Set<String> FLOW_CONTROL_FIELDS = Set.of("key", "parallelism", "rate");
    private static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z0-9._:\\-/]{1,255}");
    private static final Duration MAX_DELAY = Duration.ofDays(3650);
    private static final int MAX_METADATA_BYTES = 16 * 1024;

    private final Function<URI, Optional<String>> endpointCheck;

    /** @param endpointCheck returns why an endpoint is refused (private network…), or empty when allowed */
    public ScheduleParser(Function<URI, Optional<String>> endpointCheck) {
        this.endpointCheck = endpointCheck;
    }

    /**
     * The definition and the create-only {@code dedup_id}.
     *
     * @param targetApplication a fan-out target's {@code application} as given (an id or a uid, resolved in the
     *     create's transaction: {@link Creation}), else null
     */
    public record Parsed(ScheduleDefinition definition, String dedupId, String targetApplication) {
        public Parsed(ScheduleDefinition definition, String dedupId) {
            this(definition, dedupId, null);
        }
    }

    public Parsed parseCreate(ObjectNode body, Instant now) {
        Fields f = Fields.of(body).only(CREATE_FIELDS);
        if (f.has("target")) return parseTarget(f, now);
        String endpoint = endpoint(f);
        Timing timing = timing(f, now);
        String payload = null;
        String rawBody = f.string("body", 256 * 1024);
        if (f.has("payload")) {
            if (rawBody != null)
                throw ApiException.invalid("parameter_conflict", "body", "Give payload or body, not both");
            payload = JsonBody.text(f.raw("payload"));
        }
        String contentType = f.string("content_type", 255);
        if (contentType != null && rawBody == null)
            throw ApiException.invalid(
                    "parameter_conflict",
                    "content_type",
                    "content_type goes with body; payload and the envelope are sent as application/json");
        if (contentType != null && (contentType.indexOf('\r') >= 0 || contentType.indexOf('\n') >= 0))
            throw ApiException.invalid(
                    "parameter_invalid", "content_type", "content_type must not contain line breaks");
        String eventType = f.string("event_type", 255);
        if (eventType != null && !EVENT_TYPE.matcher(eventType).matches())
            throw ApiException.invalid(
                    "parameter_invalid", "event_type", "event_type may use letters, digits and . _ : - / only");
        String idempotencyKey = f.string("idempotency_key", 255);
        String dedupId = f.string("dedup_id", 255);
        Integer autoPause = f.integer("auto_pause_after", 0, 10_000);
        Duration timeout = f.duration("timeout", Duration.ofSeconds(1), ScheduleDefinition.MAX_TIMEOUT);
        HeaderProfile profile = HeaderProfile.STANDARD;
        String profileName = f.string("header_profile", 32);
        if (profileName != null) {
            try {
                profile = HeaderProfile.parse(profileName);
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid("parameter_invalid", "header_profile", e.getMessage());
            }
        }
        String metadata = metadata(f);
        ScheduleDefinition def = ScheduleDefinition.builder(endpoint, timing)
                .payloadJson(payload)
                .body(rawBody)
                .contentType(contentType)
                .headers(HeaderFields.parse(f))
                .eventType(eventType)
                .idempotencyKey(idempotencyKey)
                .dedupId(dedupId)
                .retry(retry(f))
                .timeout(timeout == null ? ScheduleDefinition.DEFAULT_TIMEOUT : timeout)
                .autoPauseAfter(autoPause == null ? ScheduleDefinition.DEFAULT_AUTO_PAUSE_AFTER : autoPause)
                .headerProfile(profile)
                .metadataJson(metadata)
                .build()
                .withFlowControl(flowControl(f));
        return new Parsed(def, dedupId);
    }

    /**
     * A scheduled fan-out: {@code target} in place of {@code endpoint}. Each occurrence is a message to the endpoints
     * subscribed when it fires, sent with each endpoint's own URL, headers and secret, so the fields about one request
     * (endpoint, body, headers, retry…) are refused naming the first given.
     */
    private Parsed parseTarget(Fields f, Instant now) {
        for (String field : NOT_WITH_TARGET)
            if (f.has(field))
                throw ApiException.invalid(
                        "parameter_conflict",
                        field,
                        "Give target or " + field + ", not both: a schedule with a target sends each occurrence as "
                                + "a message to every subscribed endpoint, with that endpoint's own settings");
        Fields t = f.object("target").only(Set.of("event_type", "application"));
        String eventType = t.requiredString("event_type", dev.idem.core.fanout.EventType.MAX_NAME_LENGTH);
        dev.idem.core.fanout.EventType.nameProblem(eventType).ifPresent(p -> {
            throw ApiException.invalid("parameter_invalid", t.name("event_type"), t.name("event_type") + ": " + p);
        });
        String application = t.string("application", dev.idem.core.fanout.Application.MAX_UID_LENGTH);
        String payload = f.has("payload") ? JsonBody.text(f.raw("payload")) : null;
        String dedupId = f.string("dedup_id", 255);
        ScheduleDefinition def = ScheduleDefinition.builder(
                        new dev.idem.core.fanout.FanOutTarget(eventType, null).uri(), timing(f, now))
                .payloadJson(payload)
                .eventType(eventType)
                .dedupId(dedupId)
                .autoPauseAfter(0)
                .metadataJson(metadata(f))
                .build();
        return new Parsed(def, dedupId, application);
    }

    private String endpoint(Fields f) {
        return endpoint(f, "endpoint");
    }

    /**
     * The URL in {@code field}, checked as a schedule's endpoint is: also an inbound source's destination and the
     * settings' {@code alert_endpoint}.
     */
    String endpoint(Fields f, String field) {
        String s = f.requiredString(field, 2048);
        // one definition of a well-formed endpoint, shared with the engine's connect-time check
        EndpointGuard.syntaxError(s).ifPresent(reason -> {
            throw ApiException.invalid("endpoint_invalid", f.name(field), reason);
        });
        endpointCheck.apply(URI.create(s)).ifPresent(reason -> {
            throw ApiException.invalid("endpoint_not_allowed", f.name(field), reason);
        });
        return s;
    }

    private Timing timing(Fields f, Instant now) {
        List<String> given = java.util.stream.Stream.of("delay", "fire_at", "rrule", "cron")
                .filter(f::has)
                .toList();
        if (given.size() > 1)
            throw ApiException.invalid(
                    "parameter_conflict",
                    given.get(1),
                    "Give at most one of delay, fire_at, rrule, cron (got " + String.join(", ", given) + ")");
        for (String recurringOnly : List.of("timezone", "dtstart", "exdates", "until", "count", "catch_up"))
            if (f.has(recurringOnly) && !f.has("rrule") && !f.has("cron"))
                throw ApiException.invalid(
                        "parameter_unexpected",
                        recurringOnly,
                        recurringOnly + " applies to rrule or cron schedules only");
        if (f.has("rrule") || f.has("cron")) return RecurrenceFields.parse(f, now);
        if (f.has("delay")) return new Timing.Once(now.plus(f.duration("delay", Duration.ZERO, MAX_DELAY)));
        if (f.has("fire_at")) {
            Instant at = f.instant("fire_at");
            if (at.isAfter(now.plus(MAX_DELAY)) || at.isBefore(now.minus(MAX_DELAY)))
                throw ApiException.invalid(
                        "parameter_out_of_range",
                        "fire_at",
                        "fire_at must be within 10 years of now (a past one fires at once)");
            return new Timing.Once(at);
        }
        return new Timing.Once(now);
    }

    static RetryPolicy retry(Fields f) {
        Fields r = f.object("retry");
        if (r == null) return RetryPolicy.DEFAULT;
        r.only(RETRY_FIELDS);
        RetryPolicy d = RetryPolicy.DEFAULT;
        Integer max = r.integer("max_attempts", 1, RetryPolicy.MAX_ATTEMPTS_LIMIT);
        Duration initial = r.duration("initial_backoff", Duration.ofSeconds(1), Duration.ofDays(1));
        Duration maxBackoff = r.duration("max_backoff", Duration.ofSeconds(1), Duration.ofDays(7));
        Duration maxAge = r.duration("max_age", Duration.ofSeconds(1), Duration.ofDays(30));
        try {
            return new RetryPolicy(
                    max == null ? d.maxAttempts() : max,
                    initial == null ? d.initialBackoff() : initial,
                    maxBackoff == null
                            ? (initial != null && initial.compareTo(d.maxBackoff()) > 0 ? initial : d.maxBackoff())
                            : maxBackoff,
                    maxAge == null ? d.maxAge() : maxAge);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("parameter_invalid", "retry", e.getMessage());
        }
    }

    /** {@code flow_control}: a key and at least one of parallelism (attempts at once) and rate (attempts per second). */
    static FlowControl flowControl(Fields f) {
        Fields fc = f.object("flow_control");
        if (fc == null) return null;
        fc.only(FLOW_CONTROL_FIELDS);
        String key = fc.requiredString("key", FlowControl.MAX_KEY_LENGTH);
        FlowControl.userKeyProblem(key).ifPresent(problem -> {
            throw ApiException.invalid("parameter_invalid", "flow_control.key", problem);
        });
        Integer parallelism = fc.integer("parallelism", 1, FlowControl.MAX_PARALLELISM);
        Integer rate = fc.integer("rate", 1, FlowControl.MAX_RATE);
        if (parallelism == null && rate == null)
            throw ApiException.invalid(
                    "parameter_missing", "flow_control.parallelism", "flow_control needs parallelism, rate or both");
        return new FlowControl(key, parallelism, rate);
    }

    /** {@code metadata}: a JSON object of at most 16 KiB, as compact text; also applications' and endpoints'. */
    static String metadata(Fields f) {
        JsonNode m = f.raw("metadata");
        if (m == null || m.isNull()) return null;
        if (!m.isObject())
            throw ApiException.invalid("parameter_invalid_type", "metadata", "metadata must be a JSON object");
        String s = Json.compact(m);
        if (s.length() > MAX_METADATA_BYTES)
            throw ApiException.invalid("parameter_too_long", "metadata", "metadata must be at most 16 KiB");
        return s;
    }
}
