package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Mode;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceIngestTest {
    private static Source source(String scheme, String dedup) {
        return new Source(
                "src_1",
                new Tenant("prj_1", Mode.TEST),
                "s",
                scheme,
                "secret",
                java.util.List.of(),
                scheme.equals("hmac_sha256") ? "X-Sig" : null,
                null,
                Duration.ofMinutes(5),
                "https://example.com/x",
                dedup,
                100,
                false,
                Instant.EPOCH,
                Instant.EPOCH);
    }

    private static String eventId(Source s, Map<String, String> headers, String body) {
        Map<String, String> lower = new java.util.HashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(java.util.Locale.ROOT), v));
        return SourceIngest.eventId(
                s, n -> lower.get(n.toLowerCase(java.util.Locale.ROOT)), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void autoDedupUsesEachProvidersOwnEventId() {
        assertThat(eventId(source("stripe", "auto"), Map.of(), "{\"id\":\"evt_1\",\"object\":\"event\"}"))
                .isEqualTo("evt_1");
        assertThat(eventId(source("github", "auto"), Map.of("x-github-delivery", "72d3162e"), "{}"))
                .isEqualTo("72d3162e");
        assertThat(eventId(source("standard_webhooks", "auto"), Map.of("Webhook-Id", "msg_1"), "{}"))
                .isEqualTo("msg_1");
        assertThat(eventId(source("hmac_sha256", "auto"), Map.of("X-Id", "1"), "{\"id\":1}"))
                .isNull();
    }

    @Test
    void explicitDedupReadsAHeaderOrAJsonPointerAndAMissingIdMeansNoDedup() {
        assertThat(eventId(source("github", "header:X-Id"), Map.of("x-id", " 42 "), "{}"))
                .isEqualTo("42");
        assertThat(eventId(source("github", "json:/a/b"), Map.of(), "{\"a\":{\"b\":7}}"))
                .isEqualTo("7");
        assertThat(eventId(source("github", "json:/a"), Map.of(), "{\"a\":{\"b\":7}}"))
                .as("an object is no id")
                .isNull();
        assertThat(eventId(source("stripe", "auto"), Map.of(), "not json")).isNull();
        assertThat(eventId(source("stripe", "none"), Map.of(), "{\"id\":\"evt_1\"}"))
                .isNull();
    }

    @Test
    void aVeryLongEventIdIsKeptAsItsHash() {
        String id = eventId(source("github", "header:X-Id"), Map.of("X-Id", "x".repeat(1000)), "{}");
        assertThat(id).startsWith("sha256:").hasSize(7 + 64);
        assertThat(eventId(source("github", "header:X-Id"), Map.of("X-Id", "x".repeat(1000)), "{}"))
                .isEqualTo(id);
    }

    @Test
    void providerHeadersAreForwardedUnderThePrefixExceptConnectionOnes() {
        Map<String, String> in = new LinkedHashMap<>();
        in.put("Stripe-Signature", "t=1,v1=a");
        in.put("Host", "idem.example.com");
        in.put("Content-Length", "10");
        in.put("Content-Type", "application/json");
        in.put("Connection", "keep-alive");
        in.put("User-Agent", "Stripe/1.0");
        assertThat(SourceIngest.forwarded(in))
                .containsOnlyKeys("Idem-Source-Header-Stripe-Signature", "Idem-Source-Header-User-Agent");
    }
}
