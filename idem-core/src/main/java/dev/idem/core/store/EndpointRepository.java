package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EndpointSecrets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Endpoints, scoped by tenant; deleted ones stay readable by id (their deliveries refer to them). */
public interface EndpointRepository {
    void insert(Endpoint endpoint);

    /** The endpoint with this id in this tenant, deleted or not; empty for another tenant's. */
    Optional<Endpoint> find(Tenant tenant, String id);

    /** Like {@link #find} but locks the row until the transaction ends. */
    Optional<Endpoint> findForUpdate(Tenant tenant, String id);

    /**
     * The endpoints that are not deleted, newest first, of application {@code applicationId} only when it is given;
     * {@code startingAfter} is an id, as for schedules.
     */
    Page<Endpoint> list(Tenant tenant, String applicationId, int limit, String startingAfter);

    /** Writes every field of the endpoint (matched by id); false when no such row exists. */
    boolean update(Endpoint endpoint);

    /**
     * Disables, for {@code reason}, every endpoint of the application that is neither deleted nor disabled already (one
     * disabled by hand keeps its reason); returns how many it disabled.
     */
    int disableAll(Tenant tenant, String applicationId, DisabledReason reason, Instant now);

    /**
     * Every active endpoint (neither disabled nor deleted) of the tenant, or of application {@code applicationId} only
     * when it is given, oldest first: the candidates {@link dev.idem.core.fanout.Subscribers#select} chooses from.
     */
    List<Endpoint> active(Tenant tenant, String applicationId);

    /**
     * The endpoint's signing secrets (sealed at rest, opened here), deleted or not; empty for another tenant's endpoint
     * or one that has none yet.
     */
    Optional<EndpointSecrets> secrets(Tenant tenant, String endpointId);

    /** Writes the endpoint's secrets, sealed; false when no such endpoint exists in the tenant. */
    boolean saveSecrets(Tenant tenant, EndpointSecrets secrets);
}
