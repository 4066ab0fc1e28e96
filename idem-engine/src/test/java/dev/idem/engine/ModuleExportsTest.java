package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.engine exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(Engine.class).name()).isEqualTo("dev.idem.engine");
        assertThat(ModuleExports.of(Engine.class)).containsExactly("dev.idem.engine");
    }
}
