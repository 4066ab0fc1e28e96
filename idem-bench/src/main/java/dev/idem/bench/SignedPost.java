package dev.idem.bench;

import dev.idem.wire.Envelope;
import dev.idem.wire.IdempotencyKeys;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A webhook POST as Idem sends one, for the peer and the baseline: the envelope body, Standard Webhooks
 * signature (HMAC-SHA256), the same headers, sent with a blocking call on the caller's thread over a kept-alive
 * HTTP/1.1 client with a small fixed executor (what DESIGN measured fastest on Java 17).
 */
final class SignedPost implements AutoCloseable {
    private final URI endpoint;
    private final SigningSecret secret;
    private final ExecutorService executor;
    private final HttpClient client;

    SignedPost(String endpoint, SigningSecret secret) {
        this.endpoint = URI.create(endpoint);
        this.secret = secret;
        this.executor = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "signed-post-http");
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(10)).executor(executor).build();
    }

    /** Sends delivery {@code id}, due at {@code due} with a blocking {@code send}; returns the status code. */
    int send(String id, Instant due) throws IOException, InterruptedException {
        return client.send(request(id, due), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * The same request, waited for as Idem's {@code HttpSender} does: {@code sendAsync(..).get(deadline)}. The public
     * {@code sendAsync} completes its future through {@code CompletableFuture}'s default async executor, which on a
     * machine with fewer than 3 cores is a new thread per task; {@code send} does not take that hop.
     */
    int sendAsyncGet(String id, Instant due) throws Exception {
        return client.sendAsync(request(id, due), HttpResponse.BodyHandlers.discarding())
                .get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode();
    }

    private HttpRequest request(String id, Instant due) {
        Instant now = Instant.now();
        long ts = now.getEpochSecond();
        String scheduledFor = IdempotencyKeys.Rfc3339.format(due);
        byte[] body = new Envelope("sch_bench", id, due, now, 1, 1, "UTC", null, "once", scheduledFor, null).toJson();
        HttpRequest request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("User-Agent", "idem-bench")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(ts))
                .header("webhook-signature", WebhookSigner.sign(secret, id, ts, body))
                .header("Idempotency-Key", id)
                .header("Idem-Schedule-Id", "sch_bench")
                .header("Idem-Delivery-Id", id)
                .header("Idem-Scheduled-For", scheduledFor)
                .header("Idem-Attempt", "1")
                .header("Idem-Sequence", "1")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return request;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
