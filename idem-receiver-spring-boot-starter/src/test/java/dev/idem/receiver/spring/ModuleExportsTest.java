package dev.idem.receiver.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.receiver.spring exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(IdemReceiverAutoConfiguration.class)
                        .name())
                .isEqualTo("dev.idem.receiver.spring");
        assertThat(ModuleExports.of(IdemReceiverAutoConfiguration.class)).containsExactly("dev.idem.receiver.spring");
    }
}
