package dev.idem.core;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The delivery state machine. {@code SCHEDULED → DELIVERING → SUCCEEDED | RETRYING | DEAD};
 * {@code RETRYING → DELIVERING}; a lease that expires returns {@code DELIVERING} to {@code RETRYING};
 * {@code DEAD | SUCCEEDED → RETRYING} by replay; any pending state → {@code CANCELLED} by delete.
 */
public enum DeliveryStatus {
    SCHEDULED,
    DELIVERING,
    RETRYING,
    SUCCEEDED,
    DEAD,
    CANCELLED;

    private static final Set<DeliveryStatus> PENDING = EnumSet.of(SCHEDULED, DELIVERING, RETRYING);

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static DeliveryStatus parse(String s) {
        for (DeliveryStatus v : values()) if (v.wireName().equals(s)) return v;
        throw new IllegalArgumentException(
                "status must be one of scheduled, delivering, retrying, succeeded, dead, cancelled");
    }

    /** Not yet finished: it will be (or is being) attempted. */
    public boolean isPending() {
        return PENDING.contains(this);
    }

    public boolean canBecome(DeliveryStatus next) {
        return switch (this) {
            case SCHEDULED, RETRYING -> next == DELIVERING || next == CANCELLED;
            case DELIVERING -> next == SUCCEEDED || next == RETRYING || next == DEAD || next == CANCELLED;
            case SUCCEEDED, DEAD -> next == RETRYING;
            case CANCELLED -> false;
        };
    }
}
