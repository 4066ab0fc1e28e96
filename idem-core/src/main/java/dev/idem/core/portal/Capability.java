package dev.idem.core.portal;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** What a portal link lets its holder do within its one application. */
public enum Capability {
    /** Read endpoints, the event type catalogue, messages and deliveries. */
    VIEW,
    /** Add, edit, disable, enable and delete endpoints. */
    MANAGE_ENDPOINTS,
    /** Reveal an endpoint's signing secret. */
    VIEW_SECRETS,
    /** Rotate an endpoint's signing secret. */
    ROTATE_SECRETS,
    /** Replay one delivery, or every failed one of an endpoint since a time. */
    REPLAY,
    /** Send a test event to an endpoint. */
    SEND_TEST;

    /** What a link grants when its creator names nothing. */
    public static final Set<Capability> DEFAULTS = EnumSet.of(VIEW, MANAGE_ENDPOINTS, REPLAY);

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the accepted names */
    public static Capability parse(String name) {
        for (Capability c : values()) if (c.wireName().equals(name)) return c;
        throw new IllegalArgumentException("unknown capability '" + name + "'; one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(Capability::wireName).collect(Collectors.joining(", "));
    }

    /** The stored form: wire names in declaration order, comma-separated. */
    public static String text(Set<Capability> set) {
        return set.stream().sorted().map(Capability::wireName).collect(Collectors.joining(","));
    }

    /** Reads {@link #text}; a name this version does not know (written by a newer one) grants nothing. */
    public static Set<Capability> fromText(String text) {
        Set<Capability> out = EnumSet.noneOf(Capability.class);
        if (text == null || text.isEmpty()) return out;
        for (String name : text.split(","))
            for (Capability c : values()) if (c.wireName().equals(name)) out.add(c);
        return out;
    }
}
