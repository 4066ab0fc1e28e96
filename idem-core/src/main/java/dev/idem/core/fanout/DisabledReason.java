package dev.idem.core.fanout;

import java.util.Locale;

/** Why an endpoint is disabled: it receives no message while it is. */
public enum DisabledReason {
    /** Its owner disabled it ({@code "disabled": true}). */
    MANUAL,
    /** Its application was deleted. */
    APPLICATION_DELETED,
    /** Every attempt to it failed for the project's {@code disable_after}. */
    FAILING;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static DisabledReason parse(String wireName) {
        for (DisabledReason r : values()) if (r.wireName().equals(wireName)) return r;
        throw new IllegalArgumentException("unknown disabled reason " + wireName);
    }
}
