package dev.idem.store.internal;

import dev.idem.core.AlertEvent;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Tenant;
import dev.idem.core.store.SettingsRepository;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** Table {@code project_settings}: one row per tenant that saved its settings once. */
final class JdbcSettings implements SettingsRepository {
    private final Sql sql;

    JdbcSettings(Sql sql) {
        this.sql = sql;
    }

    @Override
    public ProjectSettings find(Tenant tenant) {
        return sql.one(
                        "SELECT alert_endpoint, alert_events, disable_after_ms FROM project_settings "
                                + "WHERE project_id = ? AND mode = ?",
                        rs -> {
                            long disableAfter = rs.getLong("disable_after_ms");
                            return new ProjectSettings(
                                    tenant,
                                    rs.getString("alert_endpoint"),
                                    events(rs.getString("alert_events")),
                                    rs.wasNull()
                                            ? dev.idem.core.outcome.EndpointHealth.DEFAULT_DISABLE_AFTER
                                            : java.time.Duration.ofMillis(disableAfter));
                        },
                        tenant.projectId(),
                        Rows.mode(tenant.mode()))
                .orElseGet(() -> ProjectSettings.defaults(tenant));
    }

    @Override
    public void save(ProjectSettings s) {
        sql.update(
                "INSERT INTO project_settings (project_id, mode, alert_endpoint, alert_events, disable_after_ms, "
                        + "updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (project_id, mode) DO UPDATE SET alert_endpoint = excluded.alert_endpoint, "
                        + "alert_events = excluded.alert_events, disable_after_ms = excluded.disable_after_ms, "
                        + "updated_at = excluded.updated_at",
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                s.alertEndpoint(),
                text(s.alertEvents()),
                s.disableAfter().toMillis(),
                System.currentTimeMillis());
    }

    /** The stored form: wire names in the enum's order, comma-separated; {@code ''} for none. */
    static String text(Set<AlertEvent> events) {
        return events.stream().sorted().map(AlertEvent::wireName).collect(Collectors.joining(","));
    }

    /** An unknown name (written by a newer version) is skipped rather than failing every read of the settings. */
    static Set<AlertEvent> events(String text) {
        Set<AlertEvent> out = EnumSet.noneOf(AlertEvent.class);
        if (text == null || text.isEmpty()) return out;
        Arrays.stream(text.split(",")).forEach(name -> {
            for (AlertEvent e : AlertEvent.values()) if (e.wireName().equals(name)) out.add(e);
        });
        return out;
    }
}
