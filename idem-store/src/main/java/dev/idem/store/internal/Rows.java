package dev.idem.store.internal;

import static dev.idem.store.internal.Sql.instant;
import static dev.idem.store.internal.Sql.integer;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.TraceContext;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Column lists and row mappers shared by the repositories and the queue. */
final class Rows {
    static final String[] SCHEDULE_COLUMNS = {
        "id",
        "project_id",
        "mode",
        "status",
        "definition",
        "next_fire_at",
        "consecutive_failures",
        "paused_reason",
        "last_sequence",
        "created_at",
        "updated_at",
        "origin",
        "source_id",
        "traceparent",
        "tracestate"
    };
    static final String SCHEDULE = String.join(", ", SCHEDULE_COLUMNS);

    /**
     * The schedule column a claim reads beside {@link #SCHEDULE_COLUMNS} for its {@code definitionRevision}, and the
     * check of claims held ahead compares: moved only by a write of a different definition (V11).
     */
    static final String DEFINITION_REVISION = "definition_revision";

    static final String DELIVERY = "id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, "
            + "next_attempt_at, idempotency_key, lease_owner, lease_expires_at, last_error, created_at, updated_at, "
            + "message_id, endpoint_id";
    /** What reads return: the inserted columns plus those only later writes set. */
    static final String DELIVERY_READ = DELIVERY + ", replayed";

    static final String ATTEMPT = "id, delivery_id, number, started_at, duration_ms, status_code, error, response_body";

    private Rows() {}

    /** The schedule columns of table alias {@code alias}, each labelled {@code <prefix><column>}. */
    static String scheduleColumnsAs(String alias, String prefix) {
        return Arrays.stream(SCHEDULE_COLUMNS)
                .map(c -> alias + "." + c + " AS " + prefix + c)
                .collect(Collectors.joining(", "));
    }

    static String mode(Mode m) {
        return m.wireName();
    }

    static Tenant tenant(ResultSet rs, String prefix) throws SQLException {
        return new Tenant(
                rs.getString(prefix + "project_id"),
                Mode.valueOf(rs.getString(prefix + "mode").toUpperCase(Locale.ROOT)));
    }

    static Schedule schedule(ResultSet rs) throws SQLException {
        return schedule(rs, "");
    }

    static Schedule schedule(ResultSet rs, String p) throws SQLException {
        return new Schedule(
                rs.getString(p + "id"),
                tenant(rs, p),
                ScheduleStatus.parse(rs.getString(p + "status")),
                DefinitionCodec.read(rs.getString(p + "definition")),
                instant(rs, p + "next_fire_at"),
                rs.getInt(p + "consecutive_failures"),
                rs.getString(p + "paused_reason"),
                rs.getLong(p + "last_sequence"),
                instant(rs, p + "created_at"),
                instant(rs, p + "updated_at"),
                origin(rs.getString(p + "origin"), rs.getString(p + "source_id")),
                trace(rs.getString(p + "traceparent"), rs.getString(p + "tracestate")));
    }

    /** A schedule's {@link TraceContext} from its two columns (V80); null when it was made without one. */
    static TraceContext trace(String traceparent, String tracestate) {
        return TraceContext.fromHeaders(traceparent, tracestate).orElse(null);
    }

    /** A schedule's {@link Origin} from its two columns; null (made through the API) when {@code origin} is NULL. */
    static Origin origin(String kind, String sourceId) {
        return kind == null ? null : new Origin(Origin.Kind.parse(kind), sourceId);
    }

    /**
     * A delivery's idempotency key as stored: empty when it is the delivery's own id (every delivery whose schedule sets
     * no key), which saves a second copy of the id in each row; no key Idem sends is ever empty.
     */
    static String storedKey(Delivery d) {
        return d.idempotencyKey().equals(d.id()) ? "" : d.idempotencyKey();
    }

    /** The idempotency key of delivery {@code id} from its {@link #storedKey stored form}. */
    static String readKey(String stored, String id) {
        return stored.isEmpty() ? id : stored;
    }

    static Delivery delivery(ResultSet rs) throws SQLException {
        return new Delivery(
                rs.getString("id"),
                tenant(rs, ""),
                rs.getString("schedule_id"),
                instant(rs, "scheduled_for"),
                rs.getLong("sequence"),
                DeliveryStatus.parse(rs.getString("status")),
                rs.getInt("attempt_count"),
                instant(rs, "next_attempt_at"),
                readKey(rs.getString("idempotency_key"), rs.getString("id")),
                rs.getString("lease_owner"),
                instant(rs, "lease_expires_at"),
                rs.getString("last_error"),
                instant(rs, "created_at"),
                instant(rs, "updated_at"),
                rs.getBoolean("replayed"),
                rs.getString("message_id"),
                rs.getString("endpoint_id"));
    }

    static Attempt attempt(ResultSet rs) throws SQLException {
        return new Attempt(
                rs.getString("id"),
                rs.getString("delivery_id"),
                rs.getInt("number"),
                instant(rs, "started_at"),
                rs.getLong("duration_ms"),
                integer(rs, "status_code"),
                rs.getString("error"),
                rs.getString("response_body"));
    }
}
