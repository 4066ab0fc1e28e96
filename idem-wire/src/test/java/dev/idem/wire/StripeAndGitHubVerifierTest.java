package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class StripeAndGitHubVerifierTest {
    static final byte[] GITHUB_BODY = "Hello, World!".getBytes(StandardCharsets.UTF_8);
    static final String GITHUB_SECRET = "It's a Secret to Everybody";
    static final String GITHUB_VECTOR = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    // computed independently: printf '1614265330.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test_secret
    static final String STRIPE_SECRET = "whsec_test_secret";
    static final long TS = 1614265330L;
    static final byte[] STRIPE_BODY = "{\"id\":\"evt_1\"}".getBytes(StandardCharsets.UTF_8);
    static final String STRIPE_V1 = "e135cdbed3dda004bf8a2fb350f2541d299393c770e0b9e6e319dc595e9072aa";

    @Test
    void githubAcceptsThePublishedVector() {
        var v = new GitHubSignatureVerifier(List.of(GITHUB_SECRET));
        assertThat(v.verify(GITHUB_VECTOR, GITHUB_BODY).valid()).isTrue();
        assertThat(GitHubSignatureVerifier.sign(GITHUB_SECRET, GITHUB_BODY)).isEqualTo(GITHUB_VECTOR);
    }

    @Test
    void githubRefusesAnAlteredBodyAForgedSignatureAndAWrongScheme() {
        var v = new GitHubSignatureVerifier(List.of(GITHUB_SECRET));
        assertThat(v.verify(GITHUB_VECTOR, "Hello, World! ".getBytes(StandardCharsets.UTF_8))
                        .valid())
                .isFalse();
        assertThat(v.verify(GITHUB_VECTOR.replace("757", "758"), GITHUB_BODY).valid())
                .isFalse();
        assertThat(v.verify(GITHUB_VECTOR.replace("sha256=", "sha1="), GITHUB_BODY)
                        .reason())
                .contains("sha256=");
        assertThat(v.verify("sha256=zz", GITHUB_BODY).valid()).isFalse();
        assertThat(v.verify(null, GITHUB_BODY).reason()).contains("missing");
    }

    @Test
    void githubAcceptsEitherSecretDuringRotation() {
        var v = new GitHubSignatureVerifier(List.of("new-secret", GITHUB_SECRET));
        assertThat(v.verify(GITHUB_VECTOR, GITHUB_BODY).valid()).isTrue();
    }

    @Test
    void stripeAcceptsAnIndependentlyComputedSignature() {
        var v = stripe(TS + 5);
        assertThat(v.verify("t=" + TS + ",v1=" + STRIPE_V1, STRIPE_BODY).valid())
                .isTrue();
        assertThat(StripeSignatureVerifier.sign(STRIPE_SECRET, TS, STRIPE_BODY))
                .isEqualTo("t=" + TS + ",v1=" + STRIPE_V1);
    }

    @Test
    void stripeAcceptsAnyOfSeveralV1EntriesAndIgnoresV0() {
        var v = stripe(TS);
        String header = "t=" + TS + ",v1=" + "00".repeat(32) + ",v0=abc,v1=" + STRIPE_V1;
        assertThat(v.verify(header, STRIPE_BODY).valid()).isTrue();
        assertThat(v.verify("t=" + TS + ",v0=" + STRIPE_V1, STRIPE_BODY).reason())
                .contains("no v1");
    }

    @Test
    void stripeRefusesStaleAndFutureTimestampsBeyond300Seconds() {
        String header = "t=" + TS + ",v1=" + STRIPE_V1;
        assertThat(stripe(TS + 300).verify(header, STRIPE_BODY).valid()).isTrue();
        assertThat(stripe(TS + 301).verify(header, STRIPE_BODY).reason()).contains("tolerance");
        assertThat(stripe(TS - 301).verify(header, STRIPE_BODY).reason()).contains("tolerance");
    }

    @Test
    void stripeRefusesAReserialisedBodyAndAForgedSignature() {
        var v = stripe(TS);
        assertThat(v.verify("t=" + TS + ",v1=" + STRIPE_V1, "{ \"id\": \"evt_1\" }".getBytes(StandardCharsets.UTF_8))
                        .valid())
                .isFalse();
        assertThat(v.verify("t=" + (TS + 1) + ",v1=" + STRIPE_V1, STRIPE_BODY).valid())
                .isFalse();
        assertThat(v.verify("v1=" + STRIPE_V1, STRIPE_BODY).reason()).contains("no t=");
    }

    private static StripeSignatureVerifier stripe(long nowSeconds) {
        return new StripeSignatureVerifier(
                List.of(STRIPE_SECRET),
                Duration.ofSeconds(300),
                Clock.fixed(Instant.ofEpochSecond(nowSeconds), ZoneOffset.UTC));
    }
}
