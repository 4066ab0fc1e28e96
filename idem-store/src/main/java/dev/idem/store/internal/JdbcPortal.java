package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.portal.AuditEntry;
import dev.idem.core.portal.Capability;
import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSession;
import dev.idem.core.portal.PortalSettings;
import dev.idem.core.store.PortalRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Tables {@code portal_access}, {@code portal_sessions}, {@code portal_settings} and {@code audit_log}. */
final class JdbcPortal implements PortalRepository {
    private static final String ACCESS = "id, project_id, mode, application_id, hash, capabilities, session, "
            + "created_at, expires_at, revoked_at";
    private static final String AUDIT =
            "id, project_id, mode, application_id, access_id, session, action, object_id, fields, created_at";
    private final Sql sql;
    private final Dialect dialect;

    JdbcPortal(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public void insertAccess(PortalAccess a) {
        sql.update(
                "INSERT INTO portal_access (" + ACCESS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                a.id(),
                a.tenant().projectId(),
                Rows.mode(a.tenant().mode()),
                a.applicationId(),
                a.hash(),
                Capability.text(a.capabilities()),
                a.session(),
                a.createdAt(),
                a.expiresAt(),
                a.revokedAt());
    }

    @Override
    public Optional<PortalAccess> findAccessByHash(String hash) {
        return sql.one("SELECT " + ACCESS + " FROM portal_access WHERE hash = ?", JdbcPortal::access, hash);
    }

    @Override
    public Optional<PortalAccess> findAccess(String id) {
        return sql.one("SELECT " + ACCESS + " FROM portal_access WHERE id = ?", JdbcPortal::access, id);
    }

    @Override
    public int revoke(Tenant tenant, String applicationId, String session, Instant at) {
        String q = "UPDATE portal_access SET revoked_at = ? WHERE project_id = ? AND mode = ? AND application_id = ? "
                + "AND revoked_at IS NULL";
        if (session == null) return sql.update(q, at, tenant.projectId(), Rows.mode(tenant.mode()), applicationId);
        return sql.update(
                q + " AND session = ?", at, tenant.projectId(), Rows.mode(tenant.mode()), applicationId, session);
    }

    @Override
    public void insertSession(PortalSession s) {
        sql.update(
                "INSERT INTO portal_sessions (id, access_id, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                s.id(),
                s.accessId(),
                s.hash(),
                s.createdAt(),
                s.expiresAt());
    }

    @Override
    public Optional<PortalSession> findSessionByHash(String hash) {
        return sql.one(
                "SELECT id, access_id, hash, created_at, expires_at FROM portal_sessions WHERE hash = ?",
                rs -> new PortalSession(
                        rs.getString("id"),
                        rs.getString("access_id"),
                        rs.getString("hash"),
                        Sql.instant(rs, "created_at"),
                        Sql.instant(rs, "expires_at")),
                hash);
    }

    @Override
    public PortalSettings settings(Tenant tenant) {
        return sql.one(
                        "SELECT display_name, primary_color, logo_url, support_url, frame_ancestors "
                                + "FROM portal_settings WHERE project_id = ? AND mode = ?",
                        rs -> new PortalSettings(
                                tenant,
                                rs.getString("display_name"),
                                rs.getString("primary_color"),
                                rs.getString("logo_url"),
                                rs.getString("support_url"),
                                origins(rs.getString("frame_ancestors"))),
                        tenant.projectId(),
                        Rows.mode(tenant.mode()))
                .orElseGet(() -> PortalSettings.defaults(tenant));
    }

    @Override
    public void saveSettings(PortalSettings s) {
        sql.update(
                "INSERT INTO portal_settings (project_id, mode, display_name, primary_color, logo_url, support_url, "
                        + "frame_ancestors, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (project_id, mode) DO UPDATE SET display_name = excluded.display_name, "
                        + "primary_color = excluded.primary_color, logo_url = excluded.logo_url, "
                        + "support_url = excluded.support_url, frame_ancestors = excluded.frame_ancestors, "
                        + "updated_at = excluded.updated_at",
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                s.displayName(),
                s.primaryColor(),
                s.logoUrl(),
                s.supportUrl(),
                String.join(" ", s.frameAncestors()),
                System.currentTimeMillis());
    }

    @Override
    public int pruneSessions(Instant before, int limit) {
        return limit <= 0 ? 0 : Pruning.portalSessions(sql, dialect, before, limit);
    }

    @Override
    public int pruneLinks(Instant before, int limit) {
        return limit <= 0 ? 0 : Pruning.portalLinks(sql, dialect, before, limit);
    }

    @Override
    public int pruneAudit(Instant before, int limit) {
        return limit <= 0 ? 0 : Pruning.auditEntries(sql, dialect, before, limit);
    }

    @Override
    public void insertAudit(AuditEntry e) {
        sql.update(
                "INSERT INTO audit_log (" + AUDIT + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                e.id(),
                e.tenant().projectId(),
                Rows.mode(e.tenant().mode()),
                e.applicationId(),
                e.accessId(),
                e.session(),
                e.action(),
                e.objectId(),
                e.fields(),
                e.at());
    }

    @Override
    public Page<AuditEntry> audit(Tenant tenant, String applicationId, int limit, String startingAfter) {
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        String q = "SELECT " + AUDIT + " FROM audit_log WHERE project_id = ? AND mode = ?";
        if (applicationId != null) {
            q += " AND application_id = ?";
            args.add(applicationId);
        }
        return Pages.after(sql, q, args, startingAfter, limit, JdbcPortal::audit);
    }

    private static List<String> origins(String text) {
        return text == null || text.isBlank()
                ? List.of()
                : Arrays.asList(text.trim().split(" +"));
    }

    private static PortalAccess access(ResultSet rs) throws SQLException {
        return new PortalAccess(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("application_id"),
                rs.getString("hash"),
                Capability.fromText(rs.getString("capabilities")),
                rs.getString("session"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "expires_at"),
                Sql.instant(rs, "revoked_at"));
    }

    private static AuditEntry audit(ResultSet rs) throws SQLException {
        return new AuditEntry(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("application_id"),
                rs.getString("access_id"),
                rs.getString("session"),
                rs.getString("action"),
                rs.getString("object_id"),
                rs.getString("fields"),
                Sql.instant(rs, "created_at"));
    }
}
