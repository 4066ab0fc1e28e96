package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.wire exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(SignatureCheck.class).name()).isEqualTo("dev.idem.wire");
        assertThat(ModuleExports.of(SignatureCheck.class)).containsExactly("dev.idem.wire");
    }
}
