package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class KeyExtractorPropertiesTest {

    @Property(tries = 300)
    void anyBodyGivesAKeyThatFitsTheInboxAndNeverThrows(@ForAll @Size(max = 2000) byte[] body) {
        String k = KeyExtractor.standard().withJsonField("data.id").extract(Map.<String, String>of()::get, body);
        assertThat(k).isNotBlank().hasSizeLessThanOrEqualTo(KeyExtractor.MAX_KEY_LENGTH);
    }

    @Property(tries = 300)
    void aStringIdInAJsonBodyIsFoundWhateverItContains(@ForAll("ids") String id, @ForAll boolean spaced) {
        String json =
                "{\"other\":[1,2,{\"x\":null}]," + (spaced ? " \"id\" : " : "\"id\":") + quote(id) + ",\"t\":true}";
        String k = KeyExtractor.standard()
                .withJsonField("id")
                .extract(Map.<String, String>of()::get, json.getBytes(StandardCharsets.UTF_8));
        String trimmed = id.trim();
        String expected = trimmed.length() > KeyExtractor.MAX_KEY_LENGTH
                ? "key_" + KeyExtractor.sha256Hex(trimmed.getBytes(StandardCharsets.UTF_8))
                : trimmed;
        assertThat(k).isEqualTo(expected);
    }

    @net.jqwik.api.Example
    void aBodyNestedTooDeepIsNotReadAndTheKeyFallsBackInsteadOfExhaustingTheStack() {
        byte[] deep = "[".repeat(200_000).getBytes(StandardCharsets.UTF_8);
        KeyExtractor byField = KeyExtractor.standard().withJsonField("id");
        assertThat(byField.extract(Map.<String, String>of()::get, deep))
                .isEqualTo("body_" + KeyExtractor.sha256Hex(deep));
        assertThat(byField.extract(Map.of("Idempotency-Key", "dlv_1")::get, deep))
                .isEqualTo("dlv_1");
        byte[] overLimit = ("{\"id\":\"k\",\"deep\":" + "[".repeat(1001) + "]".repeat(1001) + "}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(byField.extract(Map.<String, String>of()::get, overLimit)).startsWith("body_");
    }

    @net.jqwik.api.Example
    void aKeyBesideNestingWithinTheLimitIsFound() {
        byte[] body = ("{\"deep\":" + "[".repeat(998) + "{}" + "]".repeat(998) + ",\"id\":\"evt_9\"}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(KeyExtractor.standard().withJsonField("id").extract(Map.<String, String>of()::get, body))
                .isEqualTo("evt_9");
    }

    @Property(tries = 200)
    void anyChangeToASignedBodyFailsVerification(
            @ForAll @Size(min = 1, max = 300) byte[] body, @ForAll int position, @ForAll byte delta) {
        if (delta == 0) delta = 1;
        SigningSecret secret = SigningSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        long ts = 1_700_000_000L;
        Map<String, String> h = Map.of(
                "webhook-id",
                "msg_1",
                "webhook-timestamp",
                Long.toString(ts),
                "webhook-signature",
                WebhookSigner.sign(secret, "msg_1", ts, body));
        Verifier v = Verifier.standardWebhooks(
                List.of(secret.reveal()),
                Duration.ofMinutes(5),
                Clock.fixed(Instant.ofEpochSecond(ts), ZoneOffset.UTC));
        assertThat(v.verify(h::get, body).valid()).isTrue();
        byte[] altered = body.clone();
        altered[Math.floorMod(position, altered.length)] += delta;
        assertThat(v.verify(h::get, altered).valid()).isFalse();
    }

    @Provide
    Arbitrary<String> ids() {
        // no lone surrogates: they do not survive a UTF-8 round trip, on the wire or here
        return Arbitraries.strings()
                .withCharRange(' ', '\uD7FF')
                .withChars('\n', '\t', '"', '\\')
                .ofMinLength(1)
                .ofMaxLength(300)
                .filter(s -> !s.isBlank());
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
