package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.client exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(IdemClient.class).name()).isEqualTo("dev.idem.client");
        assertThat(ModuleExports.of(IdemClient.class))
                .containsExactly("dev.idem.client", "dev.idem.client.model", "dev.idem.client.outbox");
    }
}
