package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.model.Settings;
import dev.idem.client.model.SettingsUpdate;
import dev.idem.client.testing.TestNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link IdemClient#settings()} and {@link IdemClient#updateSettings} against a real node. */
class SettingsCallsTest {
    @TempDir
    static Path dir;

    static TestNode node;
    static IdemClient idem;

    @BeforeAll
    static void start() {
        node = new TestNode(dir);
        idem = node.client();
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    @Test
    void settingsAreReadChangedFieldByFieldAndTurnedOff() {
        Settings defaults = idem.settings();
        assertThat(defaults.alertEndpoint()).isNull();
        assertThat(defaults.alertEvents())
                .containsExactly(Settings.DELIVERY_DEAD, Settings.SCHEDULE_AUTO_PAUSED, Settings.ENDPOINT_DISABLED);

        Settings set = idem.updateSettings(SettingsUpdate.builder()
                .alertEndpoint("http://127.0.0.1:9/alerts")
                .alertEvents(Settings.SCHEDULE_AUTO_PAUSED)
                .build());
        assertThat(set)
                .isEqualTo(new Settings("http://127.0.0.1:9/alerts", java.util.List.of(Settings.SCHEDULE_AUTO_PAUSED)));
        assertThat(idem.settings()).isEqualTo(set);

        Settings off = idem.updateSettings(SettingsUpdate.builder().alertsOff().build());
        assertThat(off.alertEndpoint()).isNull();
        assertThat(off.alertEvents()).containsExactly(Settings.SCHEDULE_AUTO_PAUSED);
    }

    @Test
    void aBadEventIsAnErrorNamingTheFieldAndChangesNothing() {
        Settings before = idem.settings();
        IdemException e = catchThrowableOfType(
                IdemException.class,
                () -> idem.updateSettings(SettingsUpdate.builder()
                        .alertEndpoint("https://93.184.216.34/x")
                        .alertEvents("delivery.lost")
                        .build()));
        assertThat(e.httpStatus()).isEqualTo(400);
        assertThat(e.type()).isEqualTo("invalid_request_error");
        assertThat(e.param()).isEqualTo("alert_events[0]");
        assertThat(e.retryable()).isFalse();
        assertThat(idem.settings()).isEqualTo(before);
        assertThatThrownBy(() -> SettingsUpdate.builder().build()).isInstanceOf(IllegalArgumentException.class);
    }
}
