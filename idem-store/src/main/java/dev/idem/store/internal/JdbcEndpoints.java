package dev.idem.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Page;
import dev.idem.core.SecretRotation.Retired;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EndpointSecrets;
import dev.idem.core.fanout.EventTypePatterns;
import dev.idem.core.fanout.Filter;
import dev.idem.core.store.EndpointRepository;
import dev.idem.core.store.StoreException;
import dev.idem.store.SecretCipher;
import dev.idem.store.internal.SealedColumns.Column;
import dev.idem.wire.SigningSecret;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Table {@code endpoints}. Event types, filter and headers are JSON text; the filter is parsed again as it is read
 * (checked when it was written, so it parses), which is what fan-out needs to match payloads.
 */
final class JdbcEndpoints implements EndpointRepository {
    private static final String COLUMNS =
            "id, project_id, mode, application_id, url, description, event_types, filter, "
                    + "headers, rate_limit, disabled_reason, metadata, deleted, created_at, updated_at";
    private static final String TENANT = " WHERE project_id = ? AND mode = ?";
    private static final String ACTIVE = " AND disabled_reason IS NULL AND NOT deleted";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Sql sql;
    private final Dialect dialect;
    private final SecretCipher cipher;

    JdbcEndpoints(Sql sql, Dialect dialect, SecretCipher cipher) {
        this.sql = sql;
        this.dialect = dialect;
        this.cipher = cipher;
    }

    /** The columns an update writes, in {@link #settings}' order. */
    private static final String SETTINGS =
            "url, description, event_types, filter, headers, rate_limit, disabled_reason, "
                    + "metadata, deleted, updated_at";

    private static Object[] settings(Endpoint e) {
        return new Object[] {
            e.url(),
            e.description(),
            e.eventTypes() == null ? null : json(e.eventTypes().asList()),
            e.filter() == null ? null : e.filter().json(),
            json(e.headers()),
            e.rateLimit(),
            e.disabledReason() == null ? null : e.disabledReason().wireName(),
            e.metadataJson(),
            e.deleted(),
            e.updatedAt()
        };
    }

    @Override
    public void insert(Endpoint e) {
        List<Object> args = new ArrayList<>(
                List.of(e.id(), e.tenant().projectId(), Rows.mode(e.tenant().mode())));
        args.add(e.applicationId());
        args.add(e.createdAt());
        args.addAll(java.util.Arrays.asList(settings(e)));
        sql.update(
                "INSERT INTO endpoints (id, project_id, mode, application_id, created_at, " + SETTINGS + ") VALUES ("
                        + Sql.marks(args.size()) + ")",
                args.toArray());
    }

    @Override
    public Optional<Endpoint> find(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + COLUMNS + " FROM endpoints" + TENANT + " AND id = ?",
                JdbcEndpoints::row,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                id);
    }

    @Override
    public Optional<Endpoint> findForUpdate(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + COLUMNS + " FROM endpoints" + TENANT + " AND id = ?" + dialect.forUpdate(),
                JdbcEndpoints::row,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                id);
    }

    @Override
    public Page<Endpoint> list(Tenant tenant, String applicationId, int limit, String startingAfter) {
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        String select = "SELECT " + COLUMNS + " FROM endpoints" + TENANT + " AND NOT deleted";
        if (applicationId != null) {
            select += " AND application_id = ?";
            args.add(applicationId);
        }
        return Pages.after(sql, select, args, startingAfter, limit, JdbcEndpoints::row);
    }

    /**
     * {@inheritDoc}
     *
     * <p>An endpoint that stops or starts receiving (disabled, enabled, deleted) pauses or resumes its unfinished
     * deliveries in the same transaction ({@link EndpointPause}); one given a {@code rate_limit} it did not have puts
     * them under it ({@link EndpointLimits}).
     */
    @Override
    public boolean update(Endpoint e) {
        record Was(boolean active, boolean limited) {}
        Optional<Was> was = sql.one(
                "SELECT disabled_reason, deleted, rate_limit FROM endpoints" + TENANT + " AND id = ?"
                        + dialect.forUpdate(),
                rs -> new Was(
                        rs.getString("disabled_reason") == null && !rs.getBoolean("deleted"),
                        Sql.integer(rs, "rate_limit") != null),
                e.tenant().projectId(),
                Rows.mode(e.tenant().mode()),
                e.id());
        List<Object> args = new ArrayList<>(java.util.Arrays.asList(settings(e)));
        args.addAll(List.of(e.tenant().projectId(), Rows.mode(e.tenant().mode()), e.id()));
        String set = String.join(" = ?, ", SETTINGS.split(", ")) + " = ?";
        boolean updated = sql.update("UPDATE endpoints SET " + set + TENANT + " AND id = ?", args.toArray()) == 1;
        if (updated && was.isPresent() && was.get().active() != e.active()) {
            if (e.active()) EndpointPause.resume(sql, dialect, List.of(e.id()), e.updatedAt());
            else EndpointPause.pause(sql, dialect, List.of(e.id()), e.updatedAt());
        }
        if (updated && was.isPresent() && !was.get().limited() && e.rateLimit() != null)
            EndpointLimits.limit(sql, dialect, e.tenant(), List.of(e.id()));
        return updated;
    }

    @Override
    public int disableAll(Tenant tenant, String applicationId, DisabledReason reason, Instant now) {
        List<String> ids = sql.query(
                "SELECT id FROM endpoints" + TENANT + " AND application_id = ?" + ACTIVE + " ORDER BY id"
                        + dialect.forUpdate(),
                rs -> rs.getString(1),
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                applicationId);
        int n = sql.update(
                "UPDATE endpoints SET disabled_reason = ?, updated_at = ?" + TENANT + " AND application_id = ?"
                        + ACTIVE,
                reason.wireName(),
                now,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                applicationId);
        EndpointPause.pause(sql, dialect, ids, now);
        return n;
    }

    @Override
    public List<Endpoint> active(Tenant tenant, String applicationId) {
        String q = "SELECT " + COLUMNS + " FROM endpoints" + TENANT + ACTIVE;
        // read once per group commit: a group of sends to one application shares its endpoints
        if (applicationId == null)
            return sql.queryPerGroup(
                    q + " ORDER BY id", JdbcEndpoints::row, tenant.projectId(), Rows.mode(tenant.mode()));
        return sql.queryPerGroup(
                q + " AND application_id = ? ORDER BY id",
                JdbcEndpoints::row,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                applicationId);
    }

    @Override
    public Optional<EndpointSecrets> secrets(Tenant tenant, String endpointId) {
        Column cur = SealedColumns.ENDPOINT_CURRENT;
        Column ret = SealedColumns.ENDPOINT_RETIRED;
        return sql.one(
                "SELECT secret, previous_secrets FROM endpoints" + TENANT + " AND id = ? AND secret IS NOT NULL",
                rs -> {
                    String retired = rs.getString(ret.column());
                    List<Retired<String>> old = retired == null
                            ? List.of()
                            : RetiredCodec.decode(
                                    cipher.open(ret.table(), endpointId, ret.column(), retired), ret.toString());
                    return new EndpointSecrets(
                            endpointId,
                            SigningSecret.parse(
                                    cipher.open(cur.table(), endpointId, cur.column(), rs.getString(cur.column()))),
                            old.stream()
                                    .map(r -> new Retired<>(SigningSecret.parse(r.secret()), r.expiresAt()))
                                    .toList());
                },
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                endpointId);
    }

    @Override
    public boolean saveSecrets(Tenant tenant, EndpointSecrets s) {
        Column cur = SealedColumns.ENDPOINT_CURRENT;
        Column ret = SealedColumns.ENDPOINT_RETIRED;
        String retired = RetiredCodec.encode(s.retired().stream()
                .map(r -> new Retired<>(r.secret().reveal(), r.expiresAt()))
                .toList());
        return sql.update(
                        "UPDATE endpoints SET secret = ?, previous_secrets = ?" + TENANT + " AND id = ?",
                        cipher.seal(
                                cur.table(),
                                s.endpointId(),
                                cur.column(),
                                s.current().reveal()),
                        retired == null ? null : cipher.seal(ret.table(), s.endpointId(), ret.column(), retired),
                        tenant.projectId(),
                        Rows.mode(tenant.mode()),
                        s.endpointId())
                == 1;
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T read(String text, TypeReference<T> type, String column) {
        try {
            return JSON.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new StoreException("endpoints." + column + " holds text that is not JSON", e, false);
        }
    }

    private static Endpoint row(ResultSet rs) throws SQLException {
        String types = rs.getString("event_types");
        String filter = rs.getString("filter");
        String reason = rs.getString("disabled_reason");
        Map<String, String> headers =
                read(rs.getString("headers"), new TypeReference<LinkedHashMap<String, String>>() {}, "headers");
        return new Endpoint(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("application_id"),
                rs.getString("url"),
                rs.getString("description"),
                types == null
                        ? null
                        : EventTypePatterns.of(read(types, new TypeReference<List<String>>() {}, "event_types")),
                filter == null ? null : Filter.parse(filter),
                headers,
                Sql.integer(rs, "rate_limit"),
                reason == null ? null : DisabledReason.parse(reason),
                rs.getString("metadata"),
                rs.getBoolean("deleted"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "updated_at"));
    }
}
