package dev.idem.client.internal;

import com.fasterxml.jackson.databind.JavaType;

/**
 * One endpoint call, described: the typed services build these, and adding an endpoint is one more of them.
 *
 * @param path the path and query under the base URL, already encoded ({@code /v1/schedules?limit=10})
 * @param body the exact JSON bytes to send, or null; the same bytes go out on every retry (Idem's fingerprint is over them)
 * @param mutating whether the call carries an {@code Idempotency-Key}
 * @param acceptsServiceUnavailable whether a 503 is an answer rather than a failure (readiness), and then nothing is retried
 */
public record ApiCall<T>(
        String method, String path, byte[] body, JavaType type, boolean mutating, boolean acceptsServiceUnavailable) {
    public static <T> ApiCall<T> get(String path, JavaType type) {
        return new ApiCall<>("GET", path, null, type, false, false);
    }

    public static <T> ApiCall<T> mutate(String method, String path, byte[] body, JavaType type) {
        return new ApiCall<>(method, path, body, type, true, false);
    }

    boolean accepts(int status) {
        return status >= 200 && status < 300 || acceptsServiceUnavailable && status == 503;
    }

    String describe() {
        int q = path.indexOf('?');
        return method + " " + (q < 0 ? path : path.substring(0, q));
    }
}
