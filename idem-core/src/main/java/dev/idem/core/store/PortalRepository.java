package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.portal.AuditEntry;
import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSession;
import dev.idem.core.portal.PortalSettings;
import java.time.Instant;
import java.util.Optional;

/** Portal links, their sessions, a project's portal settings and the audit log of portal changes. */
public interface PortalRepository {
    void insertAccess(PortalAccess access);

    /** The link whose token's SHA-256 (lower-case hex) is {@code hash}, revoked or expired or not. */
    Optional<PortalAccess> findAccessByHash(String hash);

    Optional<PortalAccess> findAccess(String id);

    /**
     * Revokes the application's links that are not revoked yet, only those labelled {@code session} when it is not
     * null; returns how many.
     */
    int revoke(Tenant tenant, String applicationId, String session, Instant at);

    void insertSession(PortalSession session);

    Optional<PortalSession> findSessionByHash(String hash);

    /** The tenant's portal settings, {@link PortalSettings#defaults} when it never saved any. */
    PortalSettings settings(Tenant tenant);

    void saveSettings(PortalSettings settings);

    void insertAudit(AuditEntry entry);

    /** Newest first; one application's when {@code applicationId} is not null. */
    Page<AuditEntry> audit(Tenant tenant, String applicationId, int limit, String startingAfter);

    /** Deletes up to {@code limit} sessions that expired before {@code before}, oldest first; returns how many. */
    int pruneSessions(Instant before, int limit);

    /**
     * Deletes up to {@code limit} links that expired before {@code before} (revoked ones too) and have no session
     * left, oldest first; returns how many.
     */
    int pruneLinks(Instant before, int limit);

    /** Deletes up to {@code limit} audit entries written before {@code before}, oldest first; returns how many. */
    int pruneAudit(Instant before, int limit);
}
