package dev.idem.receiver;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Receives one traced delivery in a JVM whose class path has no OpenTelemetry jar, and prints what happened
 * ({@link NoOpenTelemetryTest} starts it).
 */
public final class WithoutOpenTelemetry {
    private WithoutOpenTelemetry() {}

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("io.opentelemetry.api.OpenTelemetry");
            System.out.println("OPENTELEMETRY ON THE CLASS PATH");
            return;
        } catch (ClassNotFoundException expected) {
            // the point of this process
        }
        String secret = "whsec_" + java.util.Base64.getEncoder().encodeToString("no-otel-secret-0123456789".getBytes());
        byte[] body = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
        long ts = Clock.systemUTC().instant().getEpochSecond();
        Map<String, String> h = Map.of(
                "webhook-id",
                "dlv_no_otel",
                "webhook-timestamp",
                Long.toString(ts),
                "webhook-signature",
                WebhookSigner.sign(SigningSecret.parse(secret), "dlv_no_otel", ts, body),
                "traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        Receiver receiver = Receiver.builder(
                        Verifier.standardWebhooks(List.of(secret), Duration.ofMinutes(5), Clock.systemUTC()),
                        new MemoryInbox(Clock.systemUTC(), Duration.ofMinutes(1)))
                .build();
        Receipt first = receiver.receive(n -> h.get(n.toLowerCase(java.util.Locale.ROOT)), body, d -> "ok");
        Receipt again = receiver.receive(n -> h.get(n.toLowerCase(java.util.Locale.ROOT)), body, d -> "twice");
        System.out.println(first.status() + " " + again.status() + " "
                + (ReceiverTracing.automatic() == ReceiverTracing.none() ? "untraced" : "traced"));
    }
}
