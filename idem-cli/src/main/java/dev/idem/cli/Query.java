package dev.idem.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** A list call's query string from the options given. */
final class Query {
    private Query() {}

    /** {@code ?a=b&c=d} from name, value pairs, leaving out the null values; empty when all are null. */
    static String of(String... namesAndValues) {
        StringBuilder q = new StringBuilder();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] == null) continue;
            q.append(q.length() == 0 ? '?' : '&')
                    .append(namesAndValues[i])
                    .append('=')
                    .append(URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
        }
        return q.toString();
    }
}
