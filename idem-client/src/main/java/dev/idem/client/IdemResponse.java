package dev.idem.client;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A successful answer with what the HTTP exchange said about it.
 *
 * @param value the typed body
 * @param status the HTTP status (200, 201, …)
 * @param requestId Idem's {@code Request-Id} of the answering request (a replay carries the first request's body but its own id)
 * @param idempotencyKey the key the call carried, or null for a read
 * @param attempts how many HTTP attempts the call took (1 when the first answered)
 * @param headers the response headers, names in lower case
 */
public record IdemResponse<T>(
        T value, int status, String requestId, String idempotencyKey, int attempts, Map<String, List<String>> headers) {
    public IdemResponse {
        headers = Map.copyOf(headers);
    }

    /** The first value of a response header (name in any case). */
    public Optional<String> header(String name) {
        List<String> v = headers.get(name.toLowerCase(java.util.Locale.ROOT));
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v.get(0));
    }

    /** Whether Idem answered from a request it had already completed with this key ({@code Idempotent-Replayed: true}). */
    public boolean replayed() {
        return header("Idempotent-Replayed").map("true"::equalsIgnoreCase).orElse(false);
    }

    /** Whether a create matched an earlier one's {@code dedup_id} and returned that schedule ({@code Idem-Deduplicated: true}). */
    public boolean deduplicated() {
        return header("Idem-Deduplicated").map("true"::equalsIgnoreCase).orElse(false);
    }
}
