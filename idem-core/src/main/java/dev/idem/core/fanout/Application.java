package dev.idem.core.fanout;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One of a project's customers, owning endpoints: {@code app_…}, with the caller's own {@code uid} (unique among the
 * tenant's applications that are not deleted) usable wherever the id is. Deleting one disables its endpoints; the
 * application, its endpoints and their history stay readable.
 *
 * @param uid the caller's id for this customer, or null
 * @param metadataJson free JSON object text kept with it, or null
 * @param rateLimit the most deliveries a second to all its endpoints together, or null for no limit
 */
public record Application(
        String id,
        Tenant tenant,
        String uid,
        String name,
        String metadataJson,
        Integer rateLimit,
        boolean deleted,
        Instant createdAt,
        Instant updatedAt) {
    /** The prefix of every application id; a {@link #uid} may not start with it, so a reference is never ambiguous. */
    public static final String ID_PREFIX = "app_";

    public static final int MAX_UID_LENGTH = 256;
    private static final Pattern UID = Pattern.compile("[A-Za-z0-9._-]+");

    public Application {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (!id.startsWith(ID_PREFIX)) throw new IllegalArgumentException("an application id starts with app_");
        if (rateLimit != null && rateLimit < 1) throw new IllegalArgumentException("rate_limit must be at least 1");
    }

    /** Whether {@code reference} is an application id ({@code app_…}) rather than a caller's uid. */
    public static boolean isId(String reference) {
        return reference.startsWith(ID_PREFIX);
    }

    /** Why {@code uid} cannot be an application's uid, or empty when it can. */
    public static Optional<String> uidProblem(String uid) {
        if (uid.isEmpty() || uid.length() > MAX_UID_LENGTH)
            return Optional.of("a uid has 1 to " + MAX_UID_LENGTH + " characters");
        if (!UID.matcher(uid).matches()) return Optional.of("a uid may use letters, digits, '.', '_' and '-' only");
        if (isId(uid)) return Optional.of("a uid may not start with app_ (application ids do)");
        return Optional.empty();
    }

    /** This application with every setting replaced, at {@code now}. */
    public Application with(String uid, String name, String metadataJson, Integer rateLimit, Instant now) {
        return new Application(id, tenant, uid, name, metadataJson, rateLimit, deleted, createdAt, now);
    }

    public Application asDeleted(Instant now) {
        return new Application(id, tenant, uid, name, metadataJson, rateLimit, true, createdAt, now);
    }
}
