package dev.idem.bench;

import dev.idem.wire.Envelope;
import dev.idem.wire.Rfc3339;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

/**
 * A webhook POST as Idem sends one, for the peer and the baseline: the envelope body, Standard Webhooks
 * signature (HMAC-SHA256), the same headers, sent with a blocking call on the caller's thread over kept-alive
 * HTTP/1.1, with either the JDK's {@code java.net.http.HttpClient} (what a hand-rolled sender reaches for first)
 * or Apache HttpClient 5 classic (what Idem's engine sends with), so the peer can be measured both ways.
 */
final class SignedPost implements AutoCloseable {
    /** Which HTTP client sends. */
    enum Http {
        JDK,
        APACHE;

        String label() {
            return this == JDK ? "java.net.http" : "Apache HttpClient 5";
        }

        static Http parse(String v) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "jdk" -> JDK;
                case "apache" -> APACHE;
                default -> throw new IllegalArgumentException("an HTTP client is jdk or apache, got '" + v + "'");
            };
        }
    }

    private final URI endpoint;
    private final SigningSecret secret;
    private final Http http;
    private final ExecutorService executor;
    private final java.net.http.HttpClient jdk;
    private final CloseableHttpClient apache;

    SignedPost(String endpoint, SigningSecret secret, Http http) {
        this.endpoint = URI.create(endpoint);
        this.secret = secret;
        this.http = http;
        if (http == Http.JDK) {
            this.executor = Executors.newFixedThreadPool(
                    Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
                        Thread t = new Thread(r, "signed-post-http");
                        t.setDaemon(true);
                        return t;
                    });
            this.jdk = java.net.http.HttpClient.newBuilder()
                    .version(java.net.http.HttpClient.Version.HTTP_1_1)
                    .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
                    .connectTimeout(Duration.ofSeconds(10))
                    .executor(executor)
                    .build();
            this.apache = null;
        } else {
            this.executor = null;
            this.jdk = null;
            this.apache = HttpClients.custom()
                    .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(256)
                            .setMaxConnPerRoute(256)
                            .setDefaultConnectionConfig(ConnectionConfig.custom()
                                    .setConnectTimeout(Timeout.ofSeconds(10))
                                    .setSocketTimeout(Timeout.ofSeconds(30))
                                    .build())
                            .build())
                    .disableRedirectHandling()
                    .disableAutomaticRetries()
                    .disableCookieManagement()
                    .disableAuthCaching()
                    .disableContentCompression()
                    .disableDefaultUserAgent()
                    .build();
        }
    }

    Http http() {
        return http;
    }

    /** Sends delivery {@code id}, due at {@code due}, with a blocking call; returns the status code. */
    int send(String id, Instant due) throws IOException, InterruptedException {
        Instant now = Instant.now();
        long ts = now.getEpochSecond();
        String scheduledFor = Rfc3339.format(due);
        byte[] body = new Envelope("sch_bench", id, due, now, 1, 1, "UTC", null, "once", scheduledFor, null).toJson();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("User-Agent", "idem-bench");
        headers.put("webhook-id", id);
        headers.put("webhook-timestamp", Long.toString(ts));
        headers.put("webhook-signature", WebhookSigner.sign(secret, id, ts, body));
        headers.put("Idempotency-Key", id);
        headers.put("Idem-Schedule-Id", "sch_bench");
        headers.put("Idem-Delivery-Id", id);
        headers.put("Idem-Scheduled-For", scheduledFor);
        headers.put("Idem-Attempt", "1");
        headers.put("Idem-Sequence", "1");
        if (http == Http.JDK) {
            HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            headers.forEach(b::header);
            return jdk.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
        HttpPost post = new HttpPost(endpoint);
        headers.forEach(post::addHeader);
        post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
        return apache.execute(post, response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        });
    }

    @Override
    public void close() {
        if (executor != null) executor.shutdownNow();
        if (apache != null) apache.close(org.apache.hc.core5.io.CloseMode.IMMEDIATE);
    }
}
