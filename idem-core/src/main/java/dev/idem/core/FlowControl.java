package dev.idem.core;

import java.util.Objects;

/**
 * A schedule's {@code flow_control} (docs/api.md, "Flow control, fairness and {@code --max-in-flight}"): every schedule of one tenant given the same {@code key} shares at
 * most {@code parallelism} attempts in flight and {@code rate} attempts started per second, across all nodes. Either
 * limit may be absent (null), not both, except under one of Idem's own keys ({@link #forEndpoint}), whose limits the
 * claim reads from the endpoint and its application when it runs.
 */
public record FlowControl(String key, Integer parallelism, Integer rate) {
    public static final int MAX_KEY_LENGTH = 255;
    public static final int MAX_PARALLELISM = 100_000;
    public static final int MAX_RATE = 100_000;

    public FlowControl {
        Objects.requireNonNull(key, "flow_control.key");
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH)
            throw new IllegalArgumentException("flow_control.key must be 1 to " + MAX_KEY_LENGTH + " characters");
        if (parallelism == null && rate == null && !key.startsWith(RESERVED_PREFIX))
            throw new IllegalArgumentException("flow_control needs parallelism, rate or both");
        if (parallelism != null && (parallelism < 1 || parallelism > MAX_PARALLELISM))
            throw new IllegalArgumentException("flow_control.parallelism must be between 1 and " + MAX_PARALLELISM);
        if (rate != null && (rate < 1 || rate > MAX_RATE))
            throw new IllegalArgumentException(
                    "flow_control.rate must be between 1 and " + MAX_RATE + " attempts per second");
    }

    /**
     * The prefix of the keys Idem gives its own limits ({@link #forEndpoint}); a schedule's {@code flow_control.key}
     * may not start with it, so no schedule shares an endpoint's limit by naming its key.
     */
    public static final String RESERVED_PREFIX = "idem:";

    /**
     * The flow control of an endpoint's message deliveries, under a key of the endpoint's own: given to them while the
     * endpoint or its application has a {@code rate_limit}. The claim reads both limits from the endpoint and its
     * application when it runs (so a changed limit applies to the deliveries already waiting); {@code rate} is the
     * endpoint's own when the delivery was made, or null.
     */
    public static FlowControl forEndpoint(String endpointId, Integer rate) {
        return new FlowControl(RESERVED_PREFIX + "endpoint:" + endpointId, null, rate);
    }

    /** The scoped key ({@link #scopedKey}) of {@code endpointId}'s deliveries: {@link #forEndpoint}'s. */
    public static String endpointKey(Tenant tenant, String endpointId) {
        return forEndpoint(endpointId, null).scopedKey(tenant);
    }

    /** Why {@code key} cannot be a schedule's {@code flow_control.key} (one of Idem's own), or empty when it can. */
    public static java.util.Optional<String> userKeyProblem(String key) {
        return key.startsWith(RESERVED_PREFIX)
                ? java.util.Optional.of("flow_control.key may not start with '" + RESERVED_PREFIX
                        + "': such keys hold endpoints' rate limits")
                : java.util.Optional.empty();
    }

    /** The key as the store keeps it: scoped to the tenant, so two projects' keys never meet. */
    public String scopedKey(Tenant tenant) {
        return tenant.projectId() + "/" + tenant.mode().wireName() + "/" + key;
    }
}
