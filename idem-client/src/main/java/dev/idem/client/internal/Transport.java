package dev.idem.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.IdemException;
import dev.idem.client.IdemResponse;
import dev.idem.client.RequestOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Sends {@link ApiCall}s: one {@code Idempotency-Key} per mutating call, kept across that call's retries; retries with
 * backoff on no answer, 5xx, 429 ({@code Retry-After}) and 409 {@code idempotency_in_progress}; every failure as one
 * {@link IdemException}.
 */
public final class Transport {
    private static final String USER_AGENT = "idem-java/" + Version.CURRENT;
    private final IdemClientConfig config;
    private final HttpClient http;
    private final Backoff backoff;

    public Transport(IdemClientConfig config) {
        this.config = config;
        this.backoff = new Backoff(config.initialBackoff(), config.maxBackoff());
        this.http = config.httpClient() != null
                ? config.httpClient()
                : HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(config.connectTimeout())
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
    }

    public IdemClientConfig config() {
        return config;
    }

    public <T> IdemResponse<T> execute(ApiCall<T> call, RequestOptions options) {
        String key = !call.mutating()
                ? null
                : options.idempotencyKey() != null
                        ? options.idempotencyKey()
                        : config.idempotencyKeys().get();
        HttpRequest request = request(call, key, options);
        for (int attempt = 1; ; attempt++) {
            IdemException failure;
            try {
                HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                if (call.accepts(r.statusCode())) return decode(call, r, key, attempt);
                failure = apiError(call, r, key, attempt);
            } catch (IOException e) {
                failure = noAnswer(call, e, key, attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted(call, key, attempt, e);
            }
            boolean mayRetry =
                    failure.retryable() && !call.acceptsServiceUnavailable() && attempt < config.maxAttempts();
            if (!mayRetry) throw failure;
            Duration wait = backoff.delay(attempt, config.random());
            if (failure.retryAfter().isPresent()) {
                Duration asked = failure.retryAfter().get();
                if (asked.compareTo(config.maxRetryAfter()) > 0) throw failure;
                if (asked.compareTo(wait) > 0) wait = asked;
            }
            try {
                config.sleeper().sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted(call, key, attempt, e);
            }
        }
    }

    private HttpRequest request(ApiCall<?> call, String key, RequestOptions options) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(config.baseUrl() + call.path()))
                .timeout(config.requestTimeout())
                .header("Accept", "application/json")
                .header("User-Agent", USER_AGENT);
        if (config.apiKey() != null) b.header("Authorization", "Bearer " + config.apiKey());
        if (key != null) b.header("Idempotency-Key", key);
        if (call.body() != null) b.header("Content-Type", "application/json");
        if (options.traceparent() != null) {
            b.header("traceparent", options.traceparent());
            if (options.tracestate() != null && !options.tracestate().isEmpty())
                b.header("tracestate", options.tracestate());
        } else {
            // the caller's span, so Idem's spans (and every attempt of what this call creates) join its trace
            TraceContext.current().forEach(b::header);
        }
        b.method(
                call.method(),
                call.body() == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(call.body()));
        return b.build();
    }

    private <T> IdemResponse<T> decode(ApiCall<T> call, HttpResponse<byte[]> r, String key, int attempt) {
        String requestId = r.headers().firstValue("Request-Id").orElse(null);
        T value;
        try {
            value = Json.MAPPER.readValue(r.body(), call.type());
        } catch (IOException e) {
            throw new IdemException(
                    call.describe() + " answered " + r.statusCode() + " with a body this client cannot read: "
                            + e.getMessage() + " (body: " + excerpt(r.body()) + ")",
                    r.statusCode(),
                    "api_error",
                    "invalid_response",
                    null,
                    requestId,
                    false,
                    attempt,
                    key,
                    null,
                    e);
        }
        return new IdemResponse<>(
                value, r.statusCode(), requestId, key, attempt, r.headers().map());
    }

    private IdemException apiError(ApiCall<?> call, HttpResponse<byte[]> r, String key, int attempt) {
        int status = r.statusCode();
        Duration retryAfter = retryAfter(r.headers().firstValue("Retry-After").orElse(null));
        String requestId = r.headers().firstValue("Request-Id").orElse(null);
        JsonNode error = null;
        try {
            error = Json.MAPPER.readTree(r.body()).get("error");
        } catch (IOException | RuntimeException e) {
            // not Idem's error shape (a proxy's page): described below from the status alone
        }
        if (error == null || !error.isObject()) {
            String type = status >= 500 ? "api_error" : status == 429 ? "rate_limit_error" : "invalid_request_error";
            return new IdemException(
                    call.describe() + " answered HTTP " + status + " without an Idem error body (a proxy in between?): "
                            + excerpt(r.body()),
                    status,
                    type,
                    null,
                    null,
                    requestId,
                    status >= 500 || status == 429,
                    attempt,
                    key,
                    retryAfter,
                    null);
        }
        String code = text(error, "code");
        boolean retryable = status >= 500 || status == 429 || status == 409 && "idempotency_in_progress".equals(code);
        String message = text(error, "message");
        String id = text(error, "request_id");
        return new IdemException(
                call.describe() + ": " + (message == null ? "HTTP " + status : message),
                status,
                text(error, "type") == null ? "api_error" : text(error, "type"),
                code,
                text(error, "param"),
                id == null ? requestId : id,
                retryable,
                attempt,
                key,
                retryAfter,
                null);
    }

    private IdemException noAnswer(ApiCall<?> call, IOException e, String key, int attempt) {
        String code = e instanceof HttpConnectTimeoutException
                ? "connect_timeout"
                : e instanceof HttpTimeoutException
                        ? "timeout"
                        : e instanceof ConnectException ? "connection_refused" : "connection_failed";
        return new IdemException(
                "no answer from Idem at " + config.baseUrl() + " to " + call.describe() + ": " + e,
                0,
                IdemException.CONNECTION_ERROR,
                code,
                null,
                null,
                true,
                attempt,
                key,
                null,
                e);
    }

    private IdemException interrupted(ApiCall<?> call, String key, int attempt, InterruptedException e) {
        return new IdemException(
                "interrupted during " + call.describe() + " to " + config.baseUrl(),
                0,
                IdemException.CONNECTION_ERROR,
                "interrupted",
                null,
                null,
                true,
                attempt,
                key,
                null,
                e);
    }

    /** {@code Retry-After} in seconds or as an HTTP-date (RFC 9110), read against the configured clock; null if absent or unreadable. */
    Duration retryAfter(String value) {
        if (value == null || value.isBlank()) return null;
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            return v.length() > 9 ? Duration.ofSeconds(999_999_999) : Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at =
                    ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(config.clock().instant(), at);
            return d.isNegative() ? Duration.ZERO : d;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String excerpt(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8).strip();
        return s.isEmpty() ? "(empty)" : s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
