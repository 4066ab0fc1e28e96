package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class HmacSha256VerifierTest {
    private static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.UTF_8);
    /** GitHub's documented example: the same bare HMAC-SHA256 of the body, which hmac_sha256 sources check in hex. */
    private static final String GITHUB_EXAMPLE_HEX = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    @Test
    void hexMatchesGithubsPublishedExampleWithOrWithoutThePrefix() {
        var v = new HmacSha256Verifier(
                "X-Signature", HmacSha256Verifier.Encoding.HEX, List.of("It's a Secret to Everybody"));
        assertThat(v.verify(GITHUB_EXAMPLE_HEX, BODY).valid()).isTrue();
        assertThat(v.verify("sha256=" + GITHUB_EXAMPLE_HEX.toUpperCase(), BODY).valid())
                .isTrue();
        assertThat(v.verify(GITHUB_EXAMPLE_HEX, "Hello, World?".getBytes(StandardCharsets.UTF_8))
                        .valid())
                .isFalse();
    }

    @Test
    void base64IsTheSameMacInBase64() {
        byte[] mac = java.util.HexFormat.of().parseHex(GITHUB_EXAMPLE_HEX);
        String b64 = java.util.Base64.getEncoder().encodeToString(mac);
        var v = new HmacSha256Verifier(
                "X-Shopify-Hmac-Sha256",
                HmacSha256Verifier.Encoding.BASE64,
                List.of("old", "It's a Secret to Everybody"));
        assertThat(v.verify(b64, BODY).valid()).isTrue();
        assertThat(HmacSha256Verifier.sign("It's a Secret to Everybody", HmacSha256Verifier.Encoding.BASE64, BODY))
                .isEqualTo(b64);
    }

    @Test
    void missingMalformedAndWrongSignaturesFailWithAReasonThatEchoesNoSecret() {
        var v = new HmacSha256Verifier("X-Sig", HmacSha256Verifier.Encoding.HEX, List.of("s3cret"));
        assertThat(v.verify(null, BODY).reason()).isEqualTo("missing X-Sig header");
        assertThat(v.verify("zz", BODY).reason()).isEqualTo("X-Sig is not hex");
        SignatureCheck wrong = v.verify(HmacSha256Verifier.sign("other", HmacSha256Verifier.Encoding.HEX, BODY), BODY);
        assertThat(wrong.valid()).isFalse();
        assertThat(wrong.reason()).doesNotContain("s3cret");
    }
}
