package dev.idem.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Calls the API over real HTTP. */
public final class ApiClientForTests {
    public static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public ApiClientForTests(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public record Reply(int status, JsonNode json, String raw, HttpResponse<String> response) {
        public String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }
    }

    public Reply call(String method, String path, String key, String body) {
        return call(method, path, key, body, Map.of());
    }

    public Reply call(String method, String path, String key, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
        if (key != null) b.header("Authorization", "Bearer " + key);
        headers.forEach(b::header);
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = r.body().isEmpty() ? null : JSON.readTree(r.body());
            } catch (IOException notJson) {
                // metrics and such are text
            }
            return new Reply(r.statusCode(), json, r.body(), r);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(method + " " + path + " failed: " + e, e);
        }
    }
}
