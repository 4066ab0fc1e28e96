package dev.idem.core.store;

import dev.idem.core.Tenant;
import dev.idem.core.outcome.EndpointHealth;
import java.util.Collection;
import java.util.Map;

/**
 * How endpoints' attempts have gone ({@link EndpointHealth}), kept by the transaction that records outcomes; scoped by
 * tenant.
 */
public interface EndpointHealthRepository {
    /** The health of those of {@code endpointIds} that have had an attempt, by endpoint id; another tenant's: none. */
    Map<String, EndpointHealth> find(Tenant tenant, Collection<String> endpointIds);

    /** Forgets the endpoint's failures so far toward disabling it ({@link EndpointHealth#enabledAgain}). */
    void enabledAgain(Tenant tenant, String endpointId);
}
