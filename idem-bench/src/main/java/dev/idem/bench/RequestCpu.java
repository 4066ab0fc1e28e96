package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.wire.HmacSha256Verifier;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;

/**
 * The CPU of the per-request work that the issue names, each alone on this thread (thread CPU time over many calls,
 * after as many to warm up): verifying an ingested event's HMAC, parsing its JSON, serialising an answer, and the
 * engine's Standard Webhooks signature per delivery. Set beside the JVM's CPU per request, it says what share of a
 * request these are.
 */
final class RequestCpu {
    private static final int CALLS = 20_000;

    private RequestCpu() {}

    /** Prints the line alone: {@code java -cp idem-bench.jar dev.idem.bench.RequestCpu}. */
    public static void main(String[] args) {
        System.out.println(line());
    }

    static String line() {
        byte[] body =
                "{\"id\":\"evt_0123456789\",\"type\":\"orders/paid\",\"data\":{\"order\":123456,\"amount\":4200,\"currency\":\"eur\"}}"
                        .getBytes(StandardCharsets.UTF_8);
        String secret = "bench_hmac_secret_0123456789";
        HmacSha256Verifier verifier =
                new HmacSha256Verifier("X-Bench-Hmac", HmacSha256Verifier.Encoding.HEX, List.of(secret));
        String signature = HmacSha256Verifier.sign(secret, HmacSha256Verifier.Encoding.HEX, body);
        ObjectMapper json = new ObjectMapper();
        SigningSecret signing = SigningSecret.generate(new SecureRandom());
        double verify = micros(() -> verifier.verify(signature, body).valid());
        double parse = micros(() -> {
            try {
                JsonNode n = json.readTree(body);
                return n.size();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        double answer = micros(() -> {
            ObjectNode o = json.createObjectNode();
            o.put("object", "ingest");
            o.put("source_id", "src_01HZX3Q4Y7N2K8M5P6R9T0V1W2");
            o.put("event_id", "evt_0123456789");
            o.put("delivery_id", "dlv_01HZX3Q4Y7N2K8M5P6R9T0V1W3");
            o.put("deduplicated", false);
            try {
                return json.writeValueAsBytes(o).length;
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        double sign = micros(() -> WebhookSigner.sign(signing, "msg_01HZX3Q4Y7N2K8M5P6R9T0V1W4", 1_764_400_000L, body)
                .length());
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        String[] statuses = {"200", "201", "400", "404"};
        int[] n = {0};
        // what Micrometer's Jetty TimedHandler does per request: two timers' tags built, registered again and recorded
        double meters = micros(() -> {
            String status = statuses[n[0]++ & 3];
            for (String name : new String[] {"jetty.server.requests", "jetty.server.handling"})
                io.micrometer.core.instrument.Timer.builder(name)
                        .description("HTTP requests")
                        .tags(io.micrometer.core.instrument.Tags.of(
                                io.micrometer.core.instrument.Tag.of("method", "POST"),
                                io.micrometer.core.instrument.Tag.of("status", status),
                                io.micrometer.core.instrument.Tag.of("outcome", "SUCCESS")))
                        .register(registry)
                        .record(1_000, java.util.concurrent.TimeUnit.NANOSECONDS);
            return status;
        });
        io.micrometer.core.instrument.Timer[] cached = new io.micrometer.core.instrument.Timer[8];
        for (int i = 0; i < 8; i++)
            cached[i] = io.micrometer.core.instrument.Timer.builder(i < 4 ? "cached.requests" : "cached.handling")
                    .tags("method", "POST", "status", statuses[i & 3], "outcome", "SUCCESS")
                    .register(registry);
        double metersCached = micros(() -> {
            int i = n[0]++ & 3;
            cached[i].record(1_000, java.util.concurrent.TimeUnit.NANOSECONDS);
            cached[4 + i].record(1_000, java.util.concurrent.TimeUnit.NANOSECONDS);
            return cached[i];
        });
        return String.format(
                "per-request work alone (CPU µs per call, %,d calls on one thread): HMAC-SHA256 verify %.1f, JSON parse"
                        + " of the event %.1f, JSON answer serialised %.1f, the request timers as Micrometer's Jetty"
                        + " handler looks them up (built and registered again each time) %.1f, the same timers"
                        + " looked up once %.1f; per delivery (engine, not the request thread): Standard Webhooks"
                        + " signature %.1f",
                CALLS, verify, parse, answer, meters, metersCached, sign);
    }

    private static double micros(java.util.function.Supplier<Object> call) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Object sink = null;
        for (int i = 0; i < CALLS; i++) sink = call.get();
        long c0 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < CALLS; i++) sink = call.get();
        long used = mx.getCurrentThreadCpuTime() - c0;
        if (sink == null) throw new IllegalStateException("no result");
        return used / 1e3 / CALLS;
    }
}
