package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {
    static final SigningSecret SECRET = SigningSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final long TS = 1614265330L;

    @Test
    void signsThePublishedStandardWebhooksVector() {
        assertThat(WebhookSigner.sign(SECRET, ID, TS, BODY))
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void signsWithEverySecretDuringRotation() {
        SigningSecret other =
                SigningSecret.parse("whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]));
        String header = WebhookSigner.sign(List.of(SECRET, other), ID, TS, BODY);
        assertThat(java.util.Arrays.asList(header.split(" ")))
                .hasSize(2)
                .first()
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        var onlyOld = new StandardWebhooksVerifier(List.of(other), StandardWebhooksVerifier.DEFAULT_TOLERANCE, at(TS));
        assertThat(onlyOld.verify(ID, "" + TS, header, BODY).valid()).isTrue();
    }

    @Test
    void verifierAcceptsTheVectorAndRefusesAReserialisedBody() {
        var v = new StandardWebhooksVerifier(List.of(SECRET), StandardWebhooksVerifier.DEFAULT_TOLERANCE, at(TS + 10));
        String sig = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
        assertThat(v.verify(ID, "" + TS, sig, BODY).valid()).isTrue();
        assertThat(v.verify(ID, "" + TS, sig, "{\"test\":2432232314}".getBytes(StandardCharsets.UTF_8))
                        .valid())
                .isFalse();
    }

    @Test
    void verifierRefusesStaleAndFutureTimestamps() {
        String sig = WebhookSigner.sign(SECRET, ID, TS, BODY);
        var late =
                new StandardWebhooksVerifier(List.of(SECRET), StandardWebhooksVerifier.DEFAULT_TOLERANCE, at(TS + 301));
        var early =
                new StandardWebhooksVerifier(List.of(SECRET), StandardWebhooksVerifier.DEFAULT_TOLERANCE, at(TS - 301));
        assertThat(late.verify(ID, "" + TS, sig, BODY).reason()).contains("tolerance");
        assertThat(early.verify(ID, "" + TS, sig, BODY).valid()).isFalse();
    }

    @Test
    void secretNeverPrintsItsKey() {
        assertThat(SECRET.toString()).doesNotContain("MfKQ9r8");
    }

    @Test
    void recurringKeyAppendsTheOccurrenceAndOneShotKeepsTheUsersKey() {
        Instant at = Instant.parse("2026-03-10T17:00:00Z");
        assertThat(IdempotencyKeys.forOccurrence("inv-42", true, at, "dlv_1"))
                .isEqualTo("inv-42:2026-03-10T17:00:00.000Z");
        assertThat(IdempotencyKeys.forOccurrence("inv-42", false, at, "dlv_1")).isEqualTo("inv-42");
        assertThat(IdempotencyKeys.forOccurrence(null, true, at, "dlv_1")).isEqualTo("dlv_1");
    }

    @Test
    void envelopeEscapesStringsAndKeepsFieldOrder() {
        var e = new Envelope(
                "sch_1",
                "dlv_1",
                Instant.parse("2026-03-10T17:00:00Z"),
                Instant.parse("2026-03-10T17:00:02.341Z"),
                1,
                42,
                "Europe/Paris",
                "a\"b",
                "rrule",
                "FREQ=DAILY",
                null);
        assertThat(new String(e.toJson(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"schedule_id\":\"sch_1\",\"delivery_id\":\"dlv_1\",\"scheduled_for\":\"2026-03-10T17:00:00.000Z\","
                                + "\"executed_at\":\"2026-03-10T17:00:02.341Z\",\"attempt\":1,\"sequence\":42,\"timezone\":\"Europe/Paris\","
                                + "\"event_type\":\"a\\\"b\",\"input\":{\"type\":\"rrule\",\"value\":\"FREQ=DAILY\"}}");
    }

    private static Clock at(long epochSeconds) {
        return Clock.fixed(Instant.ofEpochSecond(epochSeconds), ZoneOffset.UTC);
    }
}
