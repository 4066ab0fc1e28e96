package dev.idem.server.internal;

/**
 * An error the API answers with, in the documented error shape (docs/api.md). Mapped to HTTP in one place ({@link ErrorMapper}).
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String code;
    private final String param;
    private final java.util.Map<String, String> headers;

    private ApiException(
            int status, String type, String code, String message, String param, java.util.Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
        this.headers = headers;
    }

    private ApiException(int status, String type, String code, String message, String param) {
        this(status, type, code, message, param, java.util.Map.of());
    }

    public static ApiException invalid(String code, String param, String message) {
        return new ApiException(400, "invalid_request_error", code, message, param);
    }

    public static ApiException unauthenticated(String code, String message) {
        return new ApiException(401, "authentication_error", code, message, null);
    }

    /** Authenticated, but what it authenticates (a portal session) is not allowed this. */
    public static ApiException forbidden(String code, String message) {
        return new ApiException(403, "permission_error", code, message, null);
    }

    public static ApiException notFound(String what, String id) {
        return new ApiException(404, "not_found_error", "resource_missing", "No such " + what + ": '" + id + "'", "id");
    }

    public static ApiException routeNotFound(String method, String path) {
        return new ApiException(
                404,
                "not_found_error",
                "route_not_found",
                "Unrecognized request URL (" + method + " " + path + ")",
                null);
    }

    public static ApiException conflict(String code, String message) {
        return new ApiException(409, "idempotency_error", code, message, null);
    }

    public static ApiException rateLimited(long retryAfterSeconds) {
        return rateLimited(retryAfterSeconds, "this API key");
    }

    /** Too many requests for {@code subject} ("this API key", "source src_…"). */
    public static ApiException rateLimited(long retryAfterSeconds, String subject) {
        return new ApiException(
                429,
                "rate_limit_error",
                "rate_limited",
                "Too many requests for " + subject + "; retry after " + retryAfterSeconds + "s",
                null,
                java.util.Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /** An inbound source's request whose signature did not verify (docs/sources.md). */
    public static ApiException badSignature(String reason) {
        return new ApiException(
                403, "authentication_error", "BAD_SIGNATURE", "The signature did not verify: " + reason, null);
    }

    /** A request body over a limit; {@code message} names the limit. */
    public static ApiException tooLarge(String message) {
        return new ApiException(413, "invalid_request_error", "body_too_large", message, null);
    }

    public static ApiException internal(String message) {
        return new ApiException(500, "api_error", "internal_error", message, null);
    }

    /** The store did not answer (refused, lost or timed-out connections): the client may retry after {@code retryAfterSeconds}. */
    public static ApiException unavailable(String message, int retryAfterSeconds) {
        return new ApiException(
                503,
                "api_error",
                "store_unavailable",
                message,
                null,
                java.util.Map.of("Retry-After", Integer.toString(retryAfterSeconds)));
    }

    /** The node did not take the request (too many in hand, or stopping): the client may retry after {@code retryAfterSeconds}. */
    public static ApiException busy(String message, int retryAfterSeconds) {
        return new ApiException(
                503,
                "api_error",
                "node_busy",
                message,
                null,
                java.util.Map.of("Retry-After", Integer.toString(retryAfterSeconds)));
    }

    /** The store lost a COMMIT's answer and could not say whether it took effect: retry only what is idempotent. */
    public static ApiException outcomeUnknown(String message, int retryAfterSeconds) {
        return new ApiException(
                503,
                "api_error",
                "store_outcome_unknown",
                message,
                null,
                java.util.Map.of("Retry-After", Integer.toString(retryAfterSeconds)));
    }

    /** The path exists, not with this method; {@code allow} lists the methods it has (the {@code Allow} header). */
    public static ApiException methodNotAllowed(String method, String path, String allow) {
        return new ApiException(
                405,
                "invalid_request_error",
                "method_not_allowed",
                "Method " + method + " is not allowed on " + path + "; use " + allow,
                null,
                java.util.Map.of("Allow", allow));
    }

    /** The request did not arrive in time (its body stalled). */
    public static ApiException requestTimeout(String message) {
        return new ApiException(
                408,
                "invalid_request_error",
                "request_timeout",
                message,
                null,
                java.util.Map.of("Connection", "close"));
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String code() {
        return code;
    }

    public String param() {
        return param;
    }

    /** Headers the error response carries ({@code Retry-After}, {@code Allow}). */
    public java.util.Map<String, String> headers() {
        return headers;
    }
}
