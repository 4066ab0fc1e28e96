package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import java.util.Optional;

/** Applications, scoped by tenant. A {@code uid} is unique among a tenant's applications that are not deleted. */
public interface ApplicationRepository {
    /**
     * Inserts the application, unless another application of its tenant that is not deleted has its uid: then nothing
     * is written (also when that other one commits at the same time) and the answer is false.
     */
    boolean insert(Application application);

    /**
     * The application {@code reference} names in {@code tenant}: by id ({@code app_…}, deleted or not), or by uid among
     * those not deleted. Empty for another tenant's.
     */
    Optional<Application> find(Tenant tenant, String reference);

    /** Like {@link #find} but locks the row until the transaction ends. */
    Optional<Application> findForUpdate(Tenant tenant, String reference);

    /** The applications that are not deleted, newest first; {@code startingAfter} is an id, as for schedules. */
    Page<Application> list(Tenant tenant, int limit, String startingAfter);

    /** Whether an application of the tenant other than {@code exceptId}, not deleted, has {@code uid}. */
    boolean uidTaken(Tenant tenant, String uid, String exceptId);

    /**
     * Writes every field of the application (matched by id); false when no such row exists. An application given a
     * {@code rate_limit} it did not have puts its endpoints' waiting deliveries under it in the same transaction.
     */
    boolean update(Application application);

    /** The ids among {@code ids} of the tenant's applications that have a {@code rate_limit}. */
    java.util.Set<String> rateLimited(Tenant tenant, java.util.Collection<String> ids);
}
