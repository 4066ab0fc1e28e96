package dev.idem.receiver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link Receiver#receive} did with one request, and the answer that goes with it.
 *
 * @param status what happened
 * @param key the dedup key (also for a refused request, for logs)
 * @param reason why the request was refused or the inbox failed; null otherwise
 * @param outcome the inbox's decision; null when {@link Status#REJECTED} or {@link Status#UNAVAILABLE}
 * @param failure the inbox's error when {@link Status#UNAVAILABLE}, else null
 */
public record Receipt(Status status, String key, String reason, Outcome outcome, InboxException failure) {

    /** The five things that can happen to a request. */
    public enum Status {
        /** Bad or missing signature; the handler did not run. Answer 403. */
        REJECTED,
        /** The handler ran in this call and its work is committed. */
        PROCESSED,
        /** The key was processed before; the handler did not run. Answer 2xx. */
        DUPLICATE,
        /** Another worker holds a live claim on the key; the handler did not run. Answer non-2xx. */
        IN_PROGRESS,
        /** The inbox could not record the delivery (nothing was kept). Answer 503 so the sender retries. */
        UNAVAILABLE
    }

    public Receipt {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(key, "key");
    }

    static Receipt rejected(String key, String reason) {
        return new Receipt(Status.REJECTED, key, reason, null, null);
    }

    static Receipt unavailable(String key, InboxException failure) {
        return new Receipt(Status.UNAVAILABLE, key, failure.getMessage(), null, failure);
    }

    static Receipt of(Outcome o) {
        Status s = switch (o.status()) {
            case PROCESSED -> Status.PROCESSED;
            case DUPLICATE -> Status.DUPLICATE;
            case IN_PROGRESS -> Status.IN_PROGRESS;
        };
        return new Receipt(s, o.key(), null, o, null);
    }

    /** What the handler returned (PROCESSED) or what the first delivery's handler returned (DUPLICATE); else null. */
    public String result() {
        return outcome == null ? null : outcome.result();
    }

    /** For IN_PROGRESS, how long until the other worker's claim expires; else zero. */
    public Duration retryAfter() {
        return outcome == null ? Duration.ZERO : outcome.retryAfter();
    }

    /**
     * The standard HTTP answer, the one the Servlet filter gives:
     * <ul>
     *   <li>REJECTED: 403 {@code {"error":{"code":"BAD_SIGNATURE","message":…}}};</li>
     *   <li>PROCESSED: 200 with the handler's result as body (empty when null);</li>
     *   <li>DUPLICATE: 200, {@code Idempotent-Replayed: true}, the first result or
     *       {@code {"duplicate":true,"idempotency_key":…}};</li>
     *   <li>IN_PROGRESS: 409 {@code IN_PROGRESS} with {@code Retry-After} in whole seconds, rounded up;</li>
     *   <li>UNAVAILABLE: 503 {@code INBOX_UNAVAILABLE}.</li>
     * </ul>
     */
    public Answer answer() {
        return switch (status) {
            case REJECTED -> Answer.error(403, "BAD_SIGNATURE", reason, Map.of());
            case PROCESSED -> Answer.body(200, result(), Map.of());
            case DUPLICATE ->
                Answer.body(
                        200,
                        result() != null
                                ? result()
                                : "{\"duplicate\":true,\"idempotency_key\":" + Answer.quote(key) + "}",
                        Map.of("Idempotent-Replayed", "true"));
            case IN_PROGRESS ->
                Answer.error(
                        409,
                        "IN_PROGRESS",
                        "another worker is processing this delivery",
                        Map.of(
                                "Retry-After",
                                Long.toString(Math.max(1, (retryAfter().toMillis() + 999) / 1000))));
            case UNAVAILABLE ->
                Answer.error(
                        503, "INBOX_UNAVAILABLE", "the inbox could not record this delivery; retry later", Map.of());
        };
    }

    /**
     * An HTTP answer: status, extra headers, content type and body bytes.
     *
     * @param status the HTTP status
     * @param headers headers to set besides {@code Content-Type} and {@code Content-Length}
     * @param contentType the body's media type; null when there is no body
     * @param body the body bytes, possibly empty
     */
    public record Answer(int status, Map<String, String> headers, String contentType, byte[] body) {
        public Answer {
            headers = Map.copyOf(headers);
            body = body.clone();
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        /** A JSON error body in the API's shape, {@code {"error":{"code":…,"message":…}}}, for adapters' own refusals. */
        public static Answer error(int status, String code, String message, Map<String, String> headers) {
            String json = "{\"error\":{\"code\":\"" + code + "\",\"message\":" + quote(message) + "}}";
            return new Answer(status, headers, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }

        /** A stored result as body: JSON when it looks like JSON, else UTF-8 text; no body for null. */
        static Answer body(int status, String text, Map<String, String> headers) {
            if (text == null) return new Answer(status, headers, null, new byte[0]);
            boolean json = text.startsWith("{") || text.startsWith("[");
            return new Answer(
                    status,
                    headers,
                    json ? "application/json" : "text/plain;charset=utf-8",
                    text.getBytes(StandardCharsets.UTF_8));
        }

        /** {@code s} as a JSON string literal. */
        static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : String.valueOf(s).toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            return b.append('"').toString();
        }
    }
}
