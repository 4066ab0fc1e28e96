package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.server exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(IdemServer.class).name()).isEqualTo("dev.idem.server");
        assertThat(ModuleExports.of(IdemServer.class)).containsExactly("dev.idem.server");
    }
}
