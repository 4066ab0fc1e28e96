package dev.idem.client;

import java.time.Duration;
import java.util.Optional;

/**
 * Every failure of a call, in one type: an error the API answered with ({@code {"error": {...}}}, with its
 * {@link #type()}, {@link #code()}, {@link #param()} and {@link #requestId()}), an answer that was not Idem's
 * (a proxy's 502 page), or no answer at all ({@link #type()} {@value #CONNECTION_ERROR}, {@link #httpStatus()} 0).
 *
 * <p>{@link #retryable()} says whether sending the same call again could succeed: true for connection errors,
 * 5xx, 429 and 409 {@code idempotency_in_progress}, which the client already retried {@link #attempts()} times.
 * A mutating call that failed retryably can be sent again later with the same key,
 * {@code RequestOptions.idempotencyKey(e.idempotencyKey())}, and never takes effect twice.
 */
public final class IdemException extends RuntimeException {
    /** The {@link #type()} of a call that got no HTTP answer (refused, reset, timed out). */
    public static final String CONNECTION_ERROR = "connection_error";

    private final int httpStatus;
    private final String type;
    private final String code;
    private final String param;
    private final String requestId;
    private final boolean retryable;
    private final int attempts;
    private final String idempotencyKey;
    private final Duration retryAfter;
    private final String detail;

    /**
     * @param message what failed, for people
     * @param httpStatus the HTTP status, 0 when there was no answer
     * @param retryAfter the server's {@code Retry-After}, or null
     */
    public IdemException(
            String message,
            int httpStatus,
            String type,
            String code,
            String param,
            String requestId,
            boolean retryable,
            int attempts,
            String idempotencyKey,
            Duration retryAfter,
            Throwable cause) {
        super(message, cause);
        this.detail = message;
        this.httpStatus = httpStatus;
        this.type = type;
        this.code = code;
        this.param = param;
        this.requestId = requestId;
        this.retryable = retryable;
        this.attempts = attempts;
        this.idempotencyKey = idempotencyKey;
        this.retryAfter = retryAfter;
    }

    /** The same failure after {@code attempts} attempts in all. */
    public IdemException afterAttempts(int attempts) {
        IdemException e = new IdemException(
                detail,
                httpStatus,
                type,
                code,
                param,
                requestId,
                retryable,
                attempts,
                idempotencyKey,
                retryAfter,
                getCause());
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The API's error type ({@code invalid_request_error}, {@code not_found_error}, …) or {@value #CONNECTION_ERROR}. */
    public String type() {
        return type;
    }

    /** The API's error code ({@code parameter_missing}, {@code resource_missing}, …), or null. */
    public String code() {
        return code;
    }

    /** The parameter at fault (dotted for nested fields, {@code retry.max_attempts}), or null. */
    public String param() {
        return param;
    }

    /** Idem's {@code req_…} id of the failed request (quote it in a bug report), or null when there was no answer. */
    public String requestId() {
        return requestId;
    }

    /** Whether the same call could succeed when sent again (with the same key). */
    public boolean retryable() {
        return retryable;
    }

    /** How many HTTP attempts were made before giving up. */
    public int attempts() {
        return attempts;
    }

    /** The {@code Idempotency-Key} the call carried, or null for a read. */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** How long the server asked to wait ({@code Retry-After}), if it said. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** What failed, without the status line {@link #getMessage()} adds. */
    public String detail() {
        return detail;
    }

    @Override
    public String getMessage() {
        StringBuilder s = new StringBuilder(detail).append(" (");
        s.append(httpStatus == 0 ? "no answer" : "HTTP " + httpStatus)
                .append(' ')
                .append(type);
        if (code != null) s.append('/').append(code);
        if (param != null) s.append(", param ").append(param);
        if (requestId != null) s.append(", request ").append(requestId);
        s.append(", ").append(attempts).append(attempts == 1 ? " attempt" : " attempts");
        s.append(retryable ? ", retryable" : ", not retryable").append(')');
        return s.toString();
    }
}
