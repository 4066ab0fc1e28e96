package dev.idem.core.fanout;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Where a scheduled fan-out's occurrences or an inbound source's events go instead of a URL: every endpoint
 * subscribed to the event type (of {@code applicationId} when one is named) at the time each one is sent.
 *
 * <p>The target is kept where a URL would be (a schedule definition's endpoint, a source's destination) as
 * {@code idem:fanout?[application=A&](event_type=E|event_type_from=F)} ({@link #uri()}): no URL starts with
 * {@code idem:}, and such rows never reach the engine's sender (each occurrence or event becomes a message), so every
 * store keeps one shape for both.
 *
 * @param eventType the event type, or null when each event names its own ({@code eventTypeFrom})
 * @param eventTypeFrom where an inbound event names its type: {@code header:<name>} or {@code json:<JSON pointer>};
 *     null for a fixed {@code eventType}
 * @param applicationId the application's id (never its uid), or null for every endpoint of the project
 */
public record FanOutTarget(String eventType, String eventTypeFrom, String applicationId) {
    private static final String PREFIX = "idem:fanout?";
    private static final String APPLICATION = "application=";
    private static final String EVENT_TYPE = "event_type=";
    private static final String EVENT_TYPE_FROM = "event_type_from=";

    public FanOutTarget {
        if ((eventType == null) == (eventTypeFrom == null))
            throw new IllegalArgumentException("a target has an event type or says where each event names it");
        if (eventType != null)
            EventType.nameProblem(eventType).ifPresent(p -> {
                throw new IllegalArgumentException("event_type: " + p);
            });
        if (eventTypeFrom != null)
            fromProblem(eventTypeFrom).ifPresent(p -> {
                throw new IllegalArgumentException(p);
            });
        if (applicationId != null && !applicationId.startsWith(Application.ID_PREFIX))
            throw new IllegalArgumentException("a target names its application by id (app_…)");
    }

    /** A target of one event type. */
    public FanOutTarget(String eventType, String applicationId) {
        this(eventType, null, applicationId);
    }

    /** Why {@code from} is no place an event names its type, or empty when it is one. */
    public static Optional<String> fromProblem(String from) {
        if (from.startsWith("header:") && from.length() > 7 && from.length() <= 135) {
            for (char c : from.substring(7).toCharArray())
                if (c <= ' ' || c >= 127 || "\"(),/:;<=>?@[\\]{}".indexOf(c) >= 0)
                    return Optional.of("from: a header name has no '" + c + "'");
            return Optional.empty();
        }
        if (from.startsWith("json:/") && from.length() <= 300) {
            try {
                JsonPointer.compile(from.substring(5));
                return Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.of("from: " + e.getMessage());
            }
        }
        return Optional.of(
                "from must be header:<header name> or json:<JSON pointer such as /type>, got '" + from + "'");
    }

    /** The form it is kept in. */
    public String uri() {
        return PREFIX
                + (applicationId == null ? "" : APPLICATION + applicationId + "&")
                + (eventType != null ? EVENT_TYPE + eventType : EVENT_TYPE_FROM + eventTypeFrom);
    }

    /** The target a kept endpoint or destination holds, or empty for a URL. */
    public static Optional<FanOutTarget> of(String kept) {
        if (kept == null || !kept.startsWith(PREFIX)) return Optional.empty();
        String rest = kept.substring(PREFIX.length());
        String application = null;
        if (rest.startsWith(APPLICATION)) {
            int amp = rest.indexOf('&');
            application = rest.substring(APPLICATION.length(), amp);
            rest = rest.substring(amp + 1);
        }
        if (rest.startsWith(EVENT_TYPE))
            return Optional.of(new FanOutTarget(rest.substring(EVENT_TYPE.length()), null, application));
        return Optional.of(new FanOutTarget(null, rest.substring(EVENT_TYPE_FROM.length()), application));
    }

    /**
     * The event type of one inbound event: the fixed one, or the value at {@link #eventTypeFrom} (a header, trimmed;
     * a JSON string or number at the pointer).
     *
     * @param header the request's headers by name, case-insensitively (null when absent)
     * @param body the body's JSON tree, or null when it is not JSON
     * @return the name, or empty when the event names none or one that is no event type name
     */
    public Optional<String> eventTypeOf(UnaryOperator<String> header, JsonNode body) {
        if (eventType != null) return Optional.of(eventType);
        String v = null;
        if (eventTypeFrom.startsWith("header:")) {
            String h = header.apply(eventTypeFrom.substring(7));
            v = h == null ? null : h.trim();
        } else if (body != null) {
            JsonNode n = body.at(JsonPointer.compile(eventTypeFrom.substring(5)));
            v = n.isTextual() || n.isNumber() ? n.asText() : null;
        }
        return v == null || EventType.nameProblem(v).isPresent() ? Optional.empty() : Optional.of(v);
    }
}
