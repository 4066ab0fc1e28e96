package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdemClientConfigTest {
    @Test
    void aBadSettingIsRefusedOnceAtBuildNamingIt() {
        assertThatThrownBy(() -> IdemClientConfig.builder(null).build()).hasMessageContaining("baseUrl is required");
        assertThatThrownBy(() -> IdemClientConfig.builder("ftp://x").build())
                .hasMessageContaining("http:// or https://");
        assertThatThrownBy(() -> IdemClientConfig.builder("http://x?y=1").build())
                .hasMessageContaining("query");
        assertThatThrownBy(() -> IdemClientConfig.builder("http://u:p@x").build())
                .hasMessageContaining("credentials");
        assertThatThrownBy(() ->
                        IdemClientConfig.builder("http://x").maxAttempts(0).build())
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> IdemClientConfig.builder("http://x")
                        .initialBackoff(Duration.ZERO)
                        .build())
                .hasMessageContaining("initialBackoff");
        assertThatThrownBy(() -> IdemClientConfig.builder("http://x")
                        .initialBackoff(Duration.ofSeconds(9))
                        .build())
                .hasMessageContaining("maxBackoff");
        assertThatThrownBy(() ->
                        IdemClientConfig.builder("http://x").apiKey("sk test").build())
                .hasMessageContaining("apiKey");
        assertThatThrownBy(() -> IdemClientConfig.builder("http://x")
                        .requestTimeout(Duration.ofSeconds(-1))
                        .build())
                .hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> RequestOptions.idempotencyKey("")).hasMessageContaining("1 to 255");
        assertThatThrownBy(() -> RequestOptions.idempotencyKey("k".repeat(256))).hasMessageContaining("1 to 255");
    }

    @Test
    void aTrailingSlashIsDroppedAndTheKeyNeverPrinted() {
        IdemClientConfig c = IdemClientConfig.builder("http://127.0.0.1:8080/")
                .apiKey("sk_test_secret_value")
                .build();
        assertThat(c.baseUrl().toString()).isEqualTo("http://127.0.0.1:8080");
        assertThat(c.toString()).doesNotContain("secret_value");
        assertThat(c.toBuilder().maxAttempts(2).build().apiKey()).isEqualTo("sk_test_secret_value");
    }

    @Test
    void theWorstCaseCallCoversEveryAttemptAndEveryWait() {
        IdemClientConfig c = IdemClientConfig.builder("http://x")
                .maxAttempts(3)
                .connectTimeout(Duration.ofSeconds(1))
                .requestTimeout(Duration.ofSeconds(4))
                .maxBackoff(Duration.ofSeconds(2))
                .maxRetryAfter(Duration.ofSeconds(10))
                .build();
        assertThat(c.worstCaseCallDuration()).isEqualTo(Duration.ofSeconds(3 * 5 + 2 * 10));
    }
}
