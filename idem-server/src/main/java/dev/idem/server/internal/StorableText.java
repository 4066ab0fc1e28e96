package dev.idem.server.internal;

/**
 * Text every store keeps as given. PostgreSQL's {@code text} cannot hold U+0000 (SQLite can: the same request
 * must not be a 201 on one store and a 500 on the other), and an unpaired UTF-16 surrogate has no UTF-8 form
 * (JDBC drivers would silently store a '?'). Both are refused wherever a caller can send text: body strings
 * and keys, query parameters.
 */
final class StorableText {
    static final String CODE = "parameter_invalid_characters";

    private StorableText() {}

    /** 400 {@value #CODE} naming {@code param} when {@code s} holds text no store keeps as given. */
    static void check(String s, String param) {
        int i = firstUnstorable(s);
        if (i < 0) return;
        char c = s.charAt(i);
        String what = c == 0 ? "U+0000 (NUL)" : String.format("an unpaired surrogate U+%04X", (int) c);
        String name = param == null || param.isEmpty() ? "the request body" : shown(param);
        throw ApiException.invalid(
                CODE,
                param == null || param.isEmpty() ? null : shown(param),
                name + " contains " + what + " at index " + i
                        + ", which cannot be stored as text; remove it, or encode the value (e.g. base64)");
    }

    /** The index of the first U+0000 or unpaired surrogate in {@code s}, or -1. */
    static int firstUnstorable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) return i;
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) i++;
                else return i;
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** A parameter name safe to put in an error (a bad key would otherwise break the error itself). */
    private static String shown(String param) {
        StringBuilder b = new StringBuilder(param.length());
        for (int i = 0; i < param.length(); i++) {
            char c = param.charAt(i);
            boolean pair = Character.isHighSurrogate(c)
                    && i + 1 < param.length()
                    && Character.isLowSurrogate(param.charAt(i + 1));
            if (pair) {
                b.append(c).append(param.charAt(++i));
            } else {
                b.append(c == 0 || Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return b.toString();
    }
}
