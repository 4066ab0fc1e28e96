package dev.idem.core;

import java.util.Locale;

/** Which other services' header names a delivery also carries (docs/wire.md, "Header profiles"). */
public enum HeaderProfile {
    STANDARD,
    RRULE,
    SCHEDSTACK;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException listing the accepted values */
    public static HeaderProfile parse(String s) {
        for (HeaderProfile p : values()) if (p.wireName().equals(s)) return p;
        throw new IllegalArgumentException("header_profile must be one of standard, rrule, schedstack");
    }
}
