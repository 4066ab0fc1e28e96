package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.receiver exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(Receiver.class).name()).isEqualTo("dev.idem.receiver");
        assertThat(ModuleExports.of(Receiver.class)).containsExactly("dev.idem.receiver", "dev.idem.receiver.servlet");
    }
}
