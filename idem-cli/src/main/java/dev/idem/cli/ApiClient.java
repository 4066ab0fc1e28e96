package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A thin HTTP client for the subcommands that talk to a running server. */
final class ApiClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String apiKey;

    ApiClient(String baseUrl, String apiKey) {
        String url = baseUrl == null ? "" : baseUrl.strip();
        URI parsed;
        try {
            parsed = URI.create(url);
        } catch (IllegalArgumentException e) {
            parsed = null;
        }
        if (parsed == null || parsed.getHost() == null || !("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme())))
            throw CliException.usage("--url must be the server's http:// or https:// address, such as http://127.0.0.1:8080, got '" + url + "'", null);
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.apiKey = apiKey;
    }

    record Response(int status, String body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /**
     * Sends one request.
     *
     * @throws CliException unreachable (exit 3) when the server cannot be reached or does not answer
     */
    Response send(String method, String path, String jsonBody) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(TIMEOUT)
                .header("Accept", "application/json");
        if (apiKey != null) b.header("Authorization", "Bearer " + apiKey);
        if (jsonBody != null) b.header("Content-Type", "application/json");
        b.method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.body());
        } catch (IOException e) {
            throw CliException.unreachable("cannot reach the Idem server at " + baseUrl + ": " + why(e)
                    + "; is `./idem serve` running there? (set --url or IDEM_URL)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.unreachable("interrupted while waiting for " + baseUrl, e);
        }
    }

    private static String why(IOException e) {
        String why = Failures.unreachable(e);
        return why != null ? why : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * The API's refusal as one line: its message, then type/code, param, status and request id (the error shape of
     * the API), or the status and the start of the body when it is not that shape.
     */
    static String refusal(Response r) {
        try {
            JsonNode e = JSON.readTree(r.body()).get("error");
            if (e != null && e.hasNonNull("message")) {
                StringBuilder b = new StringBuilder(e.get("message").asText()).append(" (HTTP ").append(r.status());
                if (e.hasNonNull("type")) b.append(", ").append(e.get("type").asText());
                if (e.hasNonNull("code")) b.append("/").append(e.get("code").asText());
                if (e.hasNonNull("param")) b.append(", param ").append(e.get("param").asText());
                if (e.hasNonNull("request_id")) b.append(", request ").append(e.get("request_id").asText());
                return b.append(")").toString();
            }
        } catch (IOException notJson) {
            // fall through: not the API's error shape
        }
        String body = r.body() == null ? "" : r.body().strip();
        return "the server answered HTTP " + r.status() + (body.isEmpty() ? "" : ": " + (body.length() > 200 ? body.substring(0, 200) + "…" : body));
    }
}
