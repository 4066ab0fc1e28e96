package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The tables of {@code idem applications|endpoints|event-types|messages list}, and the options every such list takes. */
final class FanoutTables {
    private FanoutTables() {}

    /** {@code --limit} and {@code --starting-after}, with the connection. */
    static class Listing {
        @Mixin
        Connection conn;

        @Option(names = "--limit", defaultValue = "10", description = "1 to 100 (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(
                names = "--starting-after",
                description = "Cursor: the last id (event types: name) of the previous page.")
        String startingAfter;

        String query(String... more) {
            String[] all = new String[4 + more.length];
            all[0] = "limit";
            all[1] = Integer.toString(limit);
            all[2] = "starting_after";
            all[3] = startingAfter;
            System.arraycopy(more, 0, all, 4, more.length);
            return Query.of(all);
        }
    }

    static String applications(JsonNode list) {
        Table t = Table.of("ID", "UID", "NAME", "STATUS", "RATE LIMIT");
        for (JsonNode a : list.path("data"))
            t.row(a.get("id"), a.get("uid"), a.get("name"), a.get("status"), a.get("rate_limit"));
        return page(t, list, "applications", "id");
    }

    static String endpoints(JsonNode list) {
        Table t = Table.of("ID", "STATUS", "APPLICATION", "EVENT TYPES", "URL");
        for (JsonNode e : list.path("data"))
            t.row(e.get("id"), e.get("status"), e.get("application"), types(e.get("event_types")), e.get("url"));
        return page(t, list, "endpoints", "id");
    }

    static String eventTypes(JsonNode list) {
        Table t = Table.of("NAME", "SCHEMA", "DEPRECATED", "DESCRIPTION");
        for (JsonNode e : list.path("data"))
            t.row(e.get("name"), e.path("schema").isObject() ? "yes" : "no", e.get("deprecated"), e.get("description"));
        return page(t, list, "event types", "name");
    }

    static String messages(JsonNode list) {
        Table t = Table.of("ID", "EVENT TYPE", "APPLICATION", "DELIVERIES", "CREATED", "SCHEDULE");
        for (JsonNode m : list.path("data"))
            t.row(
                    m.get("id"),
                    m.get("event_type"),
                    m.get("application"),
                    m.get("deliveries"),
                    m.get("created_at"),
                    m.get("schedule_id"));
        return page(t, list, "messages", "id");
    }

    /** The table, or "no …", then the option that shows the next page (its cursor is field {@code cursor}). */
    private static String page(Table t, JsonNode list, String what, String cursor) {
        String nl = System.lineSeparator();
        if (t.isEmpty()) return "no " + what + nl;
        JsonNode data = list.path("data");
        boolean more = list.path("has_more").asBoolean();
        return t
                + (more
                        ? "more: --starting-after "
                                + data.get(data.size() - 1).path(cursor).asText() + nl
                        : "");
    }

    private static String types(JsonNode types) {
        if (types == null || !types.isArray()) return "*";
        StringBuilder b = new StringBuilder();
        for (JsonNode t : types) b.append(b.isEmpty() ? "" : ",").append(t.asText());
        return b.toString();
    }
}
