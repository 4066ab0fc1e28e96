package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import java.util.Optional;

/** Inbound sources (docs/sources.md), scoped by tenant except for the ingest route's lookup by id. */
public interface SourceRepository {
    void insert(Source source);

    /** The source with this id in this tenant, deleted or not; empty for another tenant's. */
    Optional<Source> find(Tenant tenant, String id);

    /** Like {@link #find} but locks the row until the transaction ends. */
    Optional<Source> findForUpdate(Tenant tenant, String id);

    /**
     * The source with this id whatever its tenant, unless deleted: the ingest route's lookup, whose caller has no API
     * key (the source id in the path and the provider's signature are its credentials).
     */
    Optional<Source> findForIngest(String id);

    /**
     * The ids of sources created at or after {@code since} and not deleted, whatever their tenant: how the ingest route
     * learns which ids exist without a read per unknown id. Sources are few (one per provider integration), so the
     * table is scanned.
     */
    java.util.List<String> idsCreatedSince(java.time.Instant since);

    /** Newest first, deleted ones included; {@code startingAfter} as for schedules. */
    Page<Source> list(Tenant tenant, int limit, String startingAfter);

    /** Writes every field of the source (matched by id); false when no such row exists. */
    boolean update(Source source);
}
