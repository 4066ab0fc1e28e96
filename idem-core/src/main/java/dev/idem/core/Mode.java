package dev.idem.core;

import java.util.Locale;

/** Test or live: every object lives in exactly one mode of one project. */
public enum Mode {
    TEST,
    LIVE;

    /** The API key prefix of this mode, {@code sk_test_} or {@code sk_live_}. */
    public String keyPrefix() {
        return "sk_" + name().toLowerCase(Locale.ROOT) + "_";
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
