package dev.idem.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.IdemException;
import dev.idem.client.RequestOptions;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A running server as the commands see it: calls through {@link IdemClient} (its automatic {@code Idempotency-Key}
 * per mutating call, kept across its retries, and its retries on connection errors, 5xx and 429), answers as the
 * API's JSON tree, so {@code --json} prints exactly what the API said (typed records would drop the fields a newer
 * server adds), and failures as {@link CliException}s: unreachable (exit 3) or refused (exit 1), in one line.
 */
final class Api {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final IdemClient client;
    private final String url;

    private Api(IdemClient client, String url) {
        this.client = client;
        this.url = url;
    }

    static Api connect(String url, String apiKey) {
        String u = url == null ? "" : url.strip();
        URI parsed;
        try {
            parsed = URI.create(u);
        } catch (IllegalArgumentException e) {
            parsed = null;
        }
        if (parsed == null
                || parsed.getHost() == null
                || !("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme())))
            throw CliException.usage(
                    "--url must be the server's http:// or https:// address, such as http://127.0.0.1:8080, got '" + u
                            + "'",
                    null);
        // a person waits at the terminal: a few quick retries, then say what is wrong
        IdemClientConfig config = IdemClientConfig.builder(u)
                .apiKey(apiKey)
                .maxAttempts(3)
                .initialBackoff(Duration.ofMillis(200))
                .maxBackoff(Duration.ofSeconds(1))
                .connectTimeout(Duration.ofSeconds(5))
                .requestTimeout(Duration.ofSeconds(30))
                .build();
        return new Api(IdemClient.create(config), u);
    }

    JsonNode get(String pathAndQuery) {
        return send("GET", pathAndQuery, null, null);
    }

    /**
     * @param body a JSON tree, JSON text, or null
     * @param idempotencyKey the caller's key (to retry a call later), or null for a fresh one
     */
    JsonNode send(String method, String pathAndQuery, Object body, String idempotencyKey) {
        RequestOptions options =
                idempotencyKey == null ? RequestOptions.none() : RequestOptions.idempotencyKey(idempotencyKey);
        try {
            return client.request(method, pathAndQuery, body, JsonNode.class, options)
                    .value();
        } catch (IdemException e) {
            throw failure(e);
        }
    }

    private CliException failure(IdemException e) {
        if (IdemException.CONNECTION_ERROR.equals(e.type())) {
            String why = Failures.unreachable(e);
            return CliException.unreachable(
                    "cannot reach the Idem server at " + url + ": " + (why == null ? e.detail() : why)
                            + "; is `./idem serve` running there? (set --url or IDEM_URL)",
                    e);
        }
        StringBuilder line = new StringBuilder(e.detail())
                .append(" (HTTP ")
                .append(e.httpStatus())
                .append(", ")
                .append(e.type());
        if (e.code() != null) line.append('/').append(e.code());
        if (e.param() != null) line.append(", param ").append(e.param());
        if (e.requestId() != null) line.append(", request ").append(e.requestId());
        line.append(')');
        if (e.retryable())
            line.append("; the server may be busy or failing: try again later")
                    .append(
                            e.idempotencyKey() == null
                                    ? ""
                                    : " with --idempotency-key " + e.idempotencyKey() + " where the command takes it");
        return CliException.refused(line.toString());
    }

    /** A path segment: an id, encoded so it cannot leave its route. */
    static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String pretty(JsonNode node) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }
}
