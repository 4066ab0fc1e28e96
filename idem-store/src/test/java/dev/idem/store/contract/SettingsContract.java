package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.AlertEvent;
import dev.idem.core.Mode;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Tenant;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Per-tenant settings: defaults until saved, kept per (project, mode), replaced whole by a save. */
abstract class SettingsContract extends StoreTestBase {
    final Tenant live = new Tenant(tenant.projectId(), Mode.LIVE);
    final Tenant other = new Tenant("prj_b", Mode.TEST);

    ProjectSettings read(Tenant t) {
        return store.inReadTransaction(tx -> tx.settings().find(t));
    }

    @Test
    void aTenantThatNeverSavedHasNoEndpointAndEveryEvent() {
        ProjectSettings s = read(tenant);
        assertThat(s.alertEndpoint()).isNull();
        assertThat(s.alertEvents()).containsExactlyInAnyOrder(AlertEvent.values());
        assertThat(s.alerts(AlertEvent.DELIVERY_DEAD)).isFalse();
    }

    @Test
    void savedSettingsBelongToOneProjectAndMode() {
        store.useTransaction(tx -> tx.settings()
                .save(new ProjectSettings(
                        tenant, "https://ops.example.com/alerts", EnumSet.of(AlertEvent.SCHEDULE_AUTO_PAUSED))));
        ProjectSettings mine = read(tenant);
        assertThat(mine.alertEndpoint()).isEqualTo("https://ops.example.com/alerts");
        assertThat(mine.alertEvents()).containsExactly(AlertEvent.SCHEDULE_AUTO_PAUSED);
        assertThat(mine.alerts(AlertEvent.SCHEDULE_AUTO_PAUSED)).isTrue();
        assertThat(mine.alerts(AlertEvent.DELIVERY_DEAD)).isFalse();
        assertThat(read(live).alertEndpoint()).isNull();
        assertThat(read(other).alertEndpoint()).isNull();
    }

    @Test
    void aSaveReplacesTheWholeRowAndAnEmptyEventListIsKeptAsNone() {
        store.useTransaction(tx -> tx.settings()
                .save(new ProjectSettings(tenant, "https://ops.example.com/a", EnumSet.allOf(AlertEvent.class))));
        store.useTransaction(tx -> tx.settings().save(new ProjectSettings(tenant, null, Set.of())));
        ProjectSettings s = read(tenant);
        assertThat(s.alertEndpoint()).isNull();
        assertThat(s.alertEvents()).isEmpty();
    }

    @Test
    void aRolledBackSaveChangesNothing() {
        try {
            store.useTransaction(tx -> {
                tx.settings()
                        .save(new ProjectSettings(
                                tenant, "https://ops.example.com/a", Set.of(AlertEvent.DELIVERY_DEAD)));
                throw new IllegalStateException("abort");
            });
        } catch (IllegalStateException expected) {
            // the transaction rolled back
        }
        assertThat(read(tenant)).isEqualTo(ProjectSettings.defaults(tenant));
    }
}
