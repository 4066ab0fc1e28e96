package dev.idem.server.internal;

/**
 * An error the API answers with, in the SPEC's shape. Mapped to HTTP in one place ({@link ErrorMapper}).
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String code;
    private final String param;
    private final String retryAfterSeconds;

    private ApiException(int status, String type, String code, String message, String param, String retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public static ApiException invalid(String code, String param, String message) {
        return new ApiException(400, "invalid_request_error", code, message, param, null);
    }

    public static ApiException unauthenticated(String code, String message) {
        return new ApiException(401, "authentication_error", code, message, null, null);
    }

    public static ApiException notFound(String what, String id) {
        return new ApiException(404, "not_found_error", "resource_missing", "No such " + what + ": '" + id + "'", "id", null);
    }

    public static ApiException routeNotFound(String method, String path) {
        return new ApiException(404, "not_found_error", "route_not_found", "Unrecognized request URL (" + method + " " + path + ")", null, null);
    }

    public static ApiException conflict(String code, String message) {
        return new ApiException(409, "idempotency_error", code, message, null, null);
    }

    public static ApiException rateLimited(long retryAfterSeconds) {
        return new ApiException(429, "rate_limit_error", "rate_limited",
                "Too many requests for this API key; retry after " + retryAfterSeconds + "s", null, Long.toString(retryAfterSeconds));
    }

    public static ApiException internal(String message) {
        return new ApiException(500, "api_error", "internal_error", message, null, null);
    }

    public static ApiException unavailable(String message) {
        return new ApiException(503, "api_error", "store_unavailable", message, null, "1");
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

    public String retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
