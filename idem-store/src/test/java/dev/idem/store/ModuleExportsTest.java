package dev.idem.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.store exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(JdbcStores.class).name()).isEqualTo("dev.idem.store");
        assertThat(ModuleExports.of(JdbcStores.class)).containsExactly("dev.idem.store");
    }
}
