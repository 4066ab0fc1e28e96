package dev.idem.core;

import java.util.Locale;

/** Lifecycle of a schedule. */
public enum ScheduleStatus {
    ACTIVE,
    PAUSED,
    COMPLETED,
    DELETED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ScheduleStatus parse(String s) {
        for (ScheduleStatus v : values()) if (v.wireName().equals(s)) return v;
        throw new IllegalArgumentException("status must be one of active, paused, completed, deleted");
    }
}
