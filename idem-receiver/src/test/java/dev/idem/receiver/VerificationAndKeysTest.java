package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.wire.StripeSignatureVerifier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class VerificationAndKeysTest {
    static final String SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final String SW_TS = "1614265330";
    static final byte[] SW_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    static final String SW_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    static Function<String, String> headers(String... kv) {
        Map<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m::get;
    }

    static Clock at(long s) {
        return Clock.fixed(Instant.ofEpochSecond(s), ZoneOffset.UTC);
    }

    @Test
    void standardWebhooksModeAcceptsThePublishedVectorAmongSeveralSignatures() {
        Verifier v = Verifier.standardWebhooks(List.of(SW_SECRET), Duration.ofMinutes(5), at(1614265330L));
        var h = headers("webhook-id", SW_ID, "webhook-timestamp", SW_TS, "webhook-signature", "v1,Zm9yZ2Vk " + SW_SIG);
        assertThat(v.verify(h, SW_BODY).valid()).isTrue();
    }

    @Test
    void standardWebhooksModeRefusesForgedStaleAndReserialisedRequests() {
        Verifier v = Verifier.standardWebhooks(List.of(SW_SECRET), Duration.ofMinutes(5), at(1614265330L));
        assertThat(v.verify(
                                headers(
                                        "webhook-id",
                                        SW_ID,
                                        "webhook-timestamp",
                                        SW_TS,
                                        "webhook-signature",
                                        "v1,h0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
                                SW_BODY)
                        .valid())
                .isFalse();
        Verifier later = Verifier.standardWebhooks(List.of(SW_SECRET), Duration.ofMinutes(5), at(1614265330L + 301));
        assertThat(later.verify(
                                headers("webhook-id", SW_ID, "webhook-timestamp", SW_TS, "webhook-signature", SW_SIG),
                                SW_BODY)
                        .reason())
                .contains("tolerance");
        byte[] reserialised = "{\"test\":2432232314}".getBytes(StandardCharsets.UTF_8);
        assertThat(v.verify(
                                headers("webhook-id", SW_ID, "webhook-timestamp", SW_TS, "webhook-signature", SW_SIG),
                                reserialised)
                        .valid())
                .isFalse();
        assertThat(v.verify(headers(), SW_BODY).reason()).contains("missing");
    }

    @Test
    void githubModeAcceptsThePublishedVector() {
        Verifier v =
                VerifierMode.GITHUB.verifier(List.of("It's a Secret to Everybody"), Duration.ZERO, Clock.systemUTC());
        byte[] body = "Hello, World!".getBytes(StandardCharsets.UTF_8);
        assertThat(v.verify(
                                headers(
                                        "X-Hub-Signature-256",
                                        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
                                body)
                        .valid())
                .isTrue();
        assertThat(v.verify(
                                headers(
                                        "X-Hub-Signature-256",
                                        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e18"),
                                body)
                        .valid())
                .isFalse();
    }

    @Test
    void stripeModeChecksTheStripeSignatureHeaderWithin300Seconds() {
        byte[] body = "{\"id\":\"evt_9\"}".getBytes(StandardCharsets.UTF_8);
        String header = StripeSignatureVerifier.sign("whsec_abc", 1_700_000_000L, body);
        assertThat(VerifierMode.STRIPE
                        .verifier(List.of("whsec_abc"), Duration.ofSeconds(300), at(1_700_000_299L))
                        .verify(headers("Stripe-Signature", header), body)
                        .valid())
                .isTrue();
        assertThat(VerifierMode.STRIPE
                        .verifier(List.of("whsec_abc"), Duration.ofSeconds(300), at(1_700_000_301L))
                        .verify(headers("Stripe-Signature", header), body)
                        .valid())
                .isFalse();
    }

    @Test
    void keyComesFromIdempotencyKeyThenWebhookIdThenTheBodyHash() throws Exception {
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        KeyExtractor k = KeyExtractor.standard();
        assertThat(k.extract(headers("Idempotency-Key", "inv-42", "webhook-id", "dlv_1"), body))
                .isEqualTo("inv-42");
        assertThat(k.extract(headers("webhook-id", "dlv_1"), body)).isEqualTo("dlv_1");
        String hex =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        assertThat(k.extract(headers(), body)).isEqualTo("body_" + hex);
    }

    @Test
    void aConfiguredHeaderOrJsonFieldComesFirst() {
        byte[] body =
                "{\"data\":{\"object\":{\"id\":\"obj_7\"}},\"id\":\"evt_1\",\"n\":12}".getBytes(StandardCharsets.UTF_8);
        var h = headers("Idempotency-Key", "idem", "X-Event-Id", "hdr");
        assertThat(KeyExtractor.standard().withHeader("X-Event-Id").extract(h, body))
                .isEqualTo("hdr");
        assertThat(KeyExtractor.standard().withJsonField("id").extract(h, body)).isEqualTo("evt_1");
        assertThat(KeyExtractor.standard().withJsonField("data.object.id").extract(h, body))
                .isEqualTo("obj_7");
        assertThat(KeyExtractor.standard().withJsonField("n").extract(h, body)).isEqualTo("12");
        assertThat(KeyExtractor.standard().withJsonField("missing").extract(h, body))
                .isEqualTo("idem");
        assertThat(KeyExtractor.standard().withJsonField("id").extract(h, "not json".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("idem");
    }

    @Test
    void aKeyLongerThan255CharactersIsHashed() {
        String longKey = "k".repeat(300);
        assertThat(KeyExtractor.standard().extract(headers("Idempotency-Key", longKey), new byte[0]))
                .startsWith("key_")
                .hasSize(4 + 64);
    }

    @Test
    void aDedupWindowShorterThanTheSendersRetryHorizonIsRefusedWithTheReason() {
        assertThatThrownBy(() -> DedupWindow.of(Duration.ofHours(1), Duration.ofHours(24)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1h is shorter than the sender's retry horizon 24h")
                .hasMessageContaining("run the handler a second time");
        assertThat(DedupWindow.of(Duration.ofHours(24), Duration.ofHours(24)).window())
                .isEqualTo(Duration.ofHours(24));
        assertThat(DedupWindow.defaults().window()).isEqualTo(Duration.ofDays(3));
    }
}
