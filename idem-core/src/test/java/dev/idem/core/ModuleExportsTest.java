package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.testing.ModuleExports;
import org.junit.jupiter.api.Test;

/** dev.idem.core exports its API packages and nothing else (its module-info.java lists them and says why). */
class ModuleExportsTest {
    @Test
    void exportsExactlyTheApiPackages() {
        assertThat(ModuleExports.descriptorOf(ScheduleDefinition.class).name()).isEqualTo("dev.idem.core");
        assertThat(ModuleExports.of(ScheduleDefinition.class))
                .containsExactly(
                        "dev.idem.core",
                        "dev.idem.core.creation",
                        "dev.idem.core.fanout",
                        "dev.idem.core.outcome",
                        "dev.idem.core.portal",
                        "dev.idem.core.recurrence",
                        "dev.idem.core.store");
    }
}
