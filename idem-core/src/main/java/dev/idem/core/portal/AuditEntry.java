package dev.idem.core.portal;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Objects;

/**
 * One change made through the portal: who (the link and its session label), what (an action such as {@code
 * endpoint.update}, the object and the fields given, never their values) and when.
 *
 * @param fields the names of the fields the request gave, comma-separated, or null
 */
public record AuditEntry(
        String id,
        Tenant tenant,
        String applicationId,
        String accessId,
        String session,
        String action,
        String objectId,
        String fields,
        Instant at) {
    public AuditEntry {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(action, "action");
    }
}
