package dev.idem.server.internal;

import java.util.random.RandomGenerator;

/**
 * The portal's bearer tokens: {@code pt_…} for a link (it travels in the URL fragment and is exchanged once by the
 * page) and {@code ps_…} for the short session the page holds. Only their SHA-256 is stored, as for API keys.
 */
final class PortalTokens {
    static final String LINK_PREFIX = "pt_";
    static final String SESSION_PREFIX = "ps_";
    private static final char[] ALPHABET =
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

    private PortalTokens() {}

    /** A new token: the prefix and 40 characters drawn from {@code random} (about 238 bits). */
    static String issue(String prefix, RandomGenerator random) {
        StringBuilder b = new StringBuilder(prefix);
        for (int i = 0; i < 40; i++) b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        return b.toString();
    }

    static boolean isPortalToken(String token) {
        return token.startsWith(LINK_PREFIX) || token.startsWith(SESSION_PREFIX);
    }
}
