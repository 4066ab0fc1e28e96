package dev.idem.cli;

import dev.idem.core.Utf8;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** {@code idem listen --print headers|body|all}: what arrived, printed under each request's line, indented. */
enum ListenPrint {
    NONE,
    HEADERS,
    BODY,
    ALL;

    /** {@code headers}, {@code body}, {@code all} or {@code none}, in any case. */
    static final class Converter implements picocli.CommandLine.ITypeConverter<ListenPrint> {
        @Override
        public ListenPrint convert(String value) {
            try {
                return valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "'" + value + "' is not one of headers, body, all, none");
            }
        }
    }

    /** The lines to print for one request (none for {@link #NONE}). */
    String describe(Map<String, List<String>> headers, byte[] body) {
        StringBuilder out = new StringBuilder();
        String nl = System.lineSeparator();
        if (this == HEADERS || this == ALL) {
            // by name, lower case, so a request reads the same whatever the sender's spelling and order
            Map<String, List<String>> sorted = new TreeMap<>();
            headers.forEach((k, v) -> sorted.merge(k.toLowerCase(Locale.ROOT), List.copyOf(v), (a, c) -> {
                var all = new java.util.ArrayList<>(a);
                all.addAll(c);
                return all;
            }));
            sorted.forEach((k, vs) -> vs.forEach(
                    v -> out.append("  ").append(k).append(": ").append(v).append(nl)));
        }
        if (this == BODY || this == ALL) {
            String text = utf8(body);
            if (body.length == 0) out.append("  (empty body)").append(nl);
            else if (text == null)
                out.append("  (")
                        .append(body.length)
                        .append(" bytes, not UTF-8)")
                        .append(nl);
            else text.lines().forEach(l -> out.append("  ").append(l).append(nl));
        }
        return out.toString();
    }

    private static String utf8(byte[] body) {
        return Utf8.decodeOrNull(body);
    }
}
