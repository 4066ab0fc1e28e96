package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.HeaderProfile;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.engine.testing.Defs;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RequestBuilderTest {
    private static final Instant DUE = Instant.parse("2026-03-10T17:00:00Z");
    private static final Instant NOW = Instant.parse("2026-03-10T17:00:02.341Z");
    private final SigningSecret secret = SigningSecret.generate(new SplittableRandom(1));
    private final SigningSecret oldSecret = SigningSecret.generate(new SplittableRandom(2));
    private final RequestBuilder builder = new RequestBuilder();

    private Schedule schedule(ScheduleDefinition def) {
        return Defs.schedule("sch_1", Defs.TENANT, def, DUE);
    }

    @Test
    void carriesEveryStandardHeaderAndAVerifiableSignature() {
        Schedule s = schedule(Defs.with(
                Defs.once("https://example.com/hook", DUE),
                null,
                null,
                null,
                Map.of("X-Tenant", "acme"),
                "invoice.reminder",
                null));
        Delivery d = Defs.claimed(s, "dlv_1", 42, 3);
        DeliveryRequest r = builder.build(d, s, 3, List.of(secret), NOW);

        assertThat(r.endpoint()).isEqualTo("https://example.com/hook");
        assertThat(r.headers())
                .containsEntry("webhook-id", "dlv_1")
                .containsEntry("webhook-timestamp", Long.toString(NOW.getEpochSecond()))
                .containsEntry("Idempotency-Key", "dlv_1")
                .containsEntry("Idem-Schedule-Id", "sch_1")
                .containsEntry("Idem-Delivery-Id", "dlv_1")
                .containsEntry("Idem-Scheduled-For", "2026-03-10T17:00:00.000Z")
                .containsEntry("Idem-Attempt", "3")
                .containsEntry("Idem-Sequence", "42")
                .containsEntry("Idem-Event-Type", "invoice.reminder")
                .containsEntry("User-Agent", RequestBuilder.USER_AGENT)
                .containsEntry("Content-Type", "application/json")
                .containsEntry("X-Tenant", "acme");
        assertThat(RequestBuilder.USER_AGENT).startsWith("idem/");
        StandardWebhooksVerifier verifier =
                new StandardWebhooksVerifier(List.of(secret), Duration.ofMinutes(5), Clock.fixed(NOW, ZoneOffset.UTC));
        assertThat(verifier.verify(
                                r.headers().get("webhook-id"),
                                r.headers().get("webhook-timestamp"),
                                r.headers().get("webhook-signature"),
                                r.body())
                        .valid())
                .isTrue();
    }

    @Test
    void theCreatorsTraceContextGoesOutOnEveryAttemptInPlaceOfAUsersHeaderOfThatName() {
        ScheduleDefinition def = Defs.with(
                Defs.once("https://example.com/hook", DUE),
                null,
                null,
                null,
                Map.of("Traceparent", "00-11111111111111111111111111111111-2222222222222222-01"),
                null,
                null);
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        Schedule traced = schedule(def).withTrace(new dev.idem.core.TraceContext(traceparent, "vendor=a"));
        for (int attempt = 1; attempt <= 2; attempt++) {
            Map<String, String> h = builder.build(
                            Defs.claimed(traced, "dlv_1", 1, attempt), traced, attempt, List.of(secret), NOW)
                    .headers();
            assertThat(h).containsEntry("traceparent", traceparent).containsEntry("tracestate", "vendor=a");
            assertThat(h.keySet().stream().filter(k -> k.equalsIgnoreCase("traceparent")))
                    .hasSize(1);
        }
        Schedule untraced = schedule(Defs.once("https://example.com/hook", DUE));
        assertThat(builder.build(Defs.claimed(untraced, "dlv_2", 1, 1), untraced, 1, List.of(secret), NOW)
                        .headers())
                .doesNotContainKeys("traceparent", "tracestate");
    }

    @Test
    void withoutPayloadTheBodyIsTheEnvelope() {
        Schedule s = schedule(Defs.with(
                Defs.once("https://example.com/hook", DUE), null, null, null, Map.of(), "invoice.reminder", null));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 42, 1), s, 1, List.of(secret), NOW);
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"schedule_id\":\"sch_1\",\"delivery_id\":\"dlv_1\",\"scheduled_for\":\"2026-03-10T17:00:00.000Z\","
                                + "\"executed_at\":\"2026-03-10T17:00:02.341Z\",\"attempt\":1,\"sequence\":42,\"timezone\":\"UTC\","
                                + "\"event_type\":\"invoice.reminder\",\"input\":{\"type\":\"once\",\"value\":\"2026-03-10T17:00:00.000Z\"}}");
        assertThat(r.headers()).doesNotContainKey("X-RRule-Execution-Id");
    }

    @Test
    void aPayloadAndARawBodyAreSentVerbatim() {
        String payload = "{\"amount\":  12.50, \"ü\":[1,2]}";
        Schedule s = schedule(
                Defs.with(Defs.once("https://example.com/hook", DUE), payload, null, null, Map.of(), null, null));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret), NOW);
        assertThat(r.body()).isEqualTo(payload.getBytes(StandardCharsets.UTF_8));
        assertThat(r.headers()).doesNotContainKey("Idem-Event-Type");

        Schedule raw = schedule(Defs.with(
                Defs.once("https://example.com/hook", DUE),
                null,
                "a=1&b=2",
                "application/x-www-form-urlencoded",
                Map.of(),
                null,
                null));
        DeliveryRequest rr = builder.build(Defs.claimed(raw, "dlv_2", 1, 1), raw, 1, List.of(secret), NOW);
        assertThat(new String(rr.body(), StandardCharsets.UTF_8)).isEqualTo("a=1&b=2");
        assertThat(rr.headers()).containsEntry("Content-Type", "application/x-www-form-urlencoded");
    }

    @Test
    void theUsersIdempotencyKeyIsTheDeliveryKey() {
        Schedule s = schedule(
                Defs.with(Defs.once("https://example.com/hook", DUE), null, null, null, Map.of(), null, "order-7"));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 2), s, 2, List.of(secret), NOW);
        assertThat(r.headers()).containsEntry("Idempotency-Key", "order-7").containsEntry("webhook-id", "dlv_1");
    }

    @Test
    void duringRotationBothSecretsSignAndEitherVerifies() {
        Schedule s = schedule(Defs.once("https://example.com/hook", DUE));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret, oldSecret), NOW);
        assertThat(r.headers().get("webhook-signature").split(" ")).hasSize(2);
        for (SigningSecret one : List.of(secret, oldSecret)) {
            StandardWebhooksVerifier v =
                    new StandardWebhooksVerifier(List.of(one), Duration.ofMinutes(5), Clock.fixed(NOW, ZoneOffset.UTC));
            assertThat(v.verify(
                                    "dlv_1",
                                    r.headers().get("webhook-timestamp"),
                                    r.headers().get("webhook-signature"),
                                    r.body())
                            .valid())
                    .isTrue();
        }
    }

    @Test
    void profileRruleAddsItsHeadersAndTheExecutionId() {
        Schedule s = schedule(Defs.profile(Defs.once("https://example.com/hook", DUE), HeaderProfile.RRULE));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret), NOW);
        assertThat(r.headers())
                .containsEntry("X-RRule-Execution-Id", "dlv_1")
                .containsEntry("X-RRule-Scheduled-For", "2026-03-10T17:00:00.000Z")
                .containsEntry("X-RRule-Schedule-Id", "sch_1");
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).endsWith(",\"execution_id\":\"dlv_1\"}");
    }

    @Test
    void profileSchedstackAddsItsHeadersWithAnHmacOverTimestampAndBody() throws Exception {
        Schedule s = schedule(Defs.profile(Defs.once("https://example.com/hook", DUE), HeaderProfile.SCHEDSTACK));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 4), s, 4, List.of(secret), NOW);
        String ts = Long.toString(NOW.getEpochSecond());
        assertThat(r.headers())
                .containsEntry("Sched-Delivery-Id", "dlv_1")
                .containsEntry("Sched-Attempt", "4")
                .containsEntry("Sched-Timestamp", ts);
        // checked against OpenSSL computing the published scheme, not against the code that made it
        assertThat(r.headers().get("Sched-Signature"))
                .isEqualTo(
                        "sha256=" + opensslHmacSha256(secret, ts + "." + new String(r.body(), StandardCharsets.UTF_8)));
    }

    @Test
    void theSchedstackSignatureMatchesAVectorComputedOutsideJava() {
        // printf '%s' '1700000000.{"invoice":"in_42"}' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf '%s' \
        //   MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | base64 -d | xxd -p -c 256)    (Python's hmac module agrees)
        SigningSecret known = SigningSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        Schedule s = schedule(Defs.profile(
                Defs.with(
                        Defs.once("https://example.com/hook", DUE),
                        "{\"invoice\":\"in_42\"}",
                        null,
                        null,
                        Map.of(),
                        null,
                        null),
                HeaderProfile.SCHEDSTACK));
        DeliveryRequest r = builder.build(
                Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(known), Instant.ofEpochSecond(1_700_000_000L));
        assertThat(r.headers())
                .containsEntry("Sched-Timestamp", "1700000000")
                .containsEntry(
                        "Sched-Signature", "sha256=ff68bdb9355994d02a557493862041df5a52277d36df7010360a244c73e2ae8e");
    }

    /** Lower-case hex HMAC-SHA256 of {@code message} under the secret's key, by the openssl command line. */
    private static String opensslHmacSha256(SigningSecret secret, String message) throws Exception {
        byte[] key = java.util.Base64.getDecoder().decode(secret.reveal().substring(SigningSecret.PREFIX.length()));
        Process p = new ProcessBuilder(
                        "openssl",
                        "dgst",
                        "-sha256",
                        "-mac",
                        "HMAC",
                        "-macopt",
                        "hexkey:" + java.util.HexFormat.of().formatHex(key))
                .redirectErrorStream(true)
                .start();
        try (var in = p.getOutputStream()) {
            in.write(message.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as("openssl: " + out).isZero();
        return out.substring(out.lastIndexOf(' ') + 1);
    }

    @Test
    void aUserHeaderCannotShadowAReservedOne() {
        Schedule s = schedule(Defs.with(
                Defs.once("https://example.com/hook", DUE),
                null,
                null,
                null,
                Map.of("webhook-id", "forged", "Content-Type", "text/evil"),
                null,
                null));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret), NOW);
        assertThat(r.headers()).containsEntry("webhook-id", "dlv_1").containsEntry("Content-Type", "application/json");
        assertThat(r.headers().keySet().stream().filter(k -> k.equalsIgnoreCase("webhook-id")))
                .hasSize(1);
    }

    /** Issue 14: a source's event keeps the provider's headers under Idem-Source-Header-; a user's definition cannot. */
    @Test
    void providerHeadersPassOnlyOnASourcesEventWithTheSourceId() {
        Map<String, String> headers = Map.of(
                "Idem-Source-Header-Stripe-Signature",
                "t=1,v1=ab",
                "Idem-Source-Id",
                "forged",
                "Idem-Delivery-Id",
                "forged");
        ScheduleDefinition def =
                Defs.with(Defs.once("https://example.com/hook", DUE), null, "{}", null, headers, null, null);
        Schedule user = schedule(def);
        Schedule event = user.withOrigin(dev.idem.core.Origin.source("src_1"));

        DeliveryRequest fromSource = builder.build(Defs.claimed(event, "dlv_1", 1, 1), event, 1, List.of(secret), NOW);
        assertThat(fromSource.headers())
                .containsEntry("Idem-Source-Header-Stripe-Signature", "t=1,v1=ab")
                .containsEntry("Idem-Source-Id", "src_1")
                .containsEntry("Idem-Delivery-Id", "dlv_1");
        DeliveryRequest fromUser = builder.build(Defs.claimed(user, "dlv_1", 1, 1), user, 1, List.of(secret), NOW);
        assertThat(fromUser.headers().keySet()).noneMatch(k -> k.startsWith("Idem-Source"));
        Schedule alert = user.withOrigin(dev.idem.core.Origin.alert());
        assertThat(builder.build(Defs.claimed(alert, "dlv_1", 1, 1), alert, 1, List.of(secret), NOW)
                        .headers()
                        .keySet())
                .noneMatch(k -> k.startsWith("Idem-Source"));
    }

    /** Issue 18.3: a definition stored before hop-by-hop names were refused still never sends them. */
    @Test
    void hopByHopHeadersOfAStoredDefinitionAreNotSent() {
        Map<String, String> stored = new java.util.LinkedHashMap<>();
        for (String name : List.of(
                "TE",
                "Keep-Alive",
                "Proxy-Authorization",
                "Proxy-Authenticate",
                "Connection",
                "Upgrade",
                "Trailer",
                "Transfer-Encoding",
                "Host",
                "Content-Length",
                "proxy-connection")) stored.put(name, "x");
        stored.put("X-Kept", "1");
        Schedule s =
                schedule(Defs.with(Defs.once("https://example.com/hook", DUE), null, null, null, stored, null, null));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret), NOW);
        assertThat(r.headers()).containsEntry("X-Kept", "1");
        for (String name : stored.keySet())
            if (!name.equals("X-Kept"))
                assertThat(r.headers().keySet()).as(name).noneMatch(k -> k.equalsIgnoreCase(name));
    }

    /** Issue 18.5: the payload's bytes are the stored text's, whatever its numbers, key order, escapes and spacing. */
    @Test
    void thePayloadIsSentAsItsStoredText() {
        String payload =
                "{\"b\": 1, \"a\": [1.0, 100.0, 123456789012345678901234567890], \"c\": \"caf\\u00e9 \u00e9\"}";
        Schedule s = schedule(
                Defs.with(Defs.once("https://example.com/hook", DUE), payload, null, null, Map.of(), null, null));
        DeliveryRequest r = builder.build(Defs.claimed(s, "dlv_1", 1, 1), s, 1, List.of(secret), NOW);
        assertThat(r.body()).isEqualTo(payload.getBytes(StandardCharsets.UTF_8));
    }
}
