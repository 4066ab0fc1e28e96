package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** What people see of the API's answers ({@code --json} prints the answers themselves). */
final class Views {
    private static final String NL = System.lineSeparator();

    private Views() {}

    /** One object, a field a line. */
    static String object(JsonNode o) {
        return Table.fields(o).toString();
    }

    static String schedules(JsonNode list) {
        Table t = Table.of("ID", "STATUS", "KIND", "NEXT FIRE", "LAST DELIVERY", "EVENT TYPE", "ENDPOINT");
        for (JsonNode s : list.path("data"))
            t.row(
                    s.get("id"),
                    s.get("status"),
                    s.get("kind"),
                    s.get("next_fire_at"),
                    s.get("last_delivery_status"),
                    s.get("event_type"),
                    s.get("endpoint"));
        return page(t, list, "schedules");
    }

    static String deliveries(JsonNode list) {
        Table t = Table.of("ID", "STATUS", "ATTEMPTS", "SCHEDULED FOR", "SCHEDULE", "LAST ERROR");
        for (JsonNode d : list.path("data"))
            t.row(
                    d.get("id"),
                    d.get("status"),
                    d.get("attempt_count"),
                    d.get("scheduled_for"),
                    d.get("schedule_id"),
                    d.get("last_error"));
        return page(t, list, "deliveries");
    }

    static String sources(JsonNode list) {
        Table t = Table.of("ID", "NAME", "SCHEME", "DESTINATION", "INGEST URL");
        for (JsonNode s : list.path("data"))
            t.row(
                    s.get("id"),
                    s.get("name"),
                    s.path("verify").get("scheme"),
                    s.get("destination"),
                    s.get("ingest_url"));
        return page(t, list, "sources");
    }

    /** A delivery's fields, then its attempts. */
    static String delivery(JsonNode d) {
        StringBuilder out = new StringBuilder(Table.fields(d, "attempts").toString());
        JsonNode attempts = d.path("attempts");
        if (attempts.isArray() && !attempts.isEmpty()) {
            Table t = Table.of("ATTEMPT", "STARTED", "MS", "STATUS CODE", "ERROR", "RESPONSE");
            for (JsonNode a : attempts)
                t.row(
                        a.get("number"),
                        a.get("started_at"),
                        a.get("duration_ms"),
                        a.get("status_code"),
                        a.get("error"),
                        a.get("response_body"));
            out.append(NL).append(t);
        }
        return out.toString();
    }

    /** A batch create's answer: one row per item, then the counts. */
    static String batch(JsonNode answer) {
        Table t = Table.of("ITEM", "STATUS", "SCHEDULE", "CODE", "ERROR");
        for (JsonNode i : answer.path("data"))
            t.row(
                    i.get("index"),
                    i.get("status_code"),
                    i.path("schedule").get("id"),
                    i.path("error").get("code"),
                    i.path("error").get("message"));
        return t + "created " + answer.path("created").asInt() + ", failed "
                + answer.path("failed").asInt() + NL;
    }

    static String bulkReplay(JsonNode answer) {
        long deleted = answer.path("skipped_schedule_deleted").asLong();
        long paused = answer.path("skipped_schedule_paused").asLong();
        long endpointDeleted = answer.path("skipped_endpoint_deleted").asLong();
        long held = answer.path("held_endpoint_disabled").asLong();
        return "replayed " + answer.path("replayed").asLong() + " dead deliveries"
                + (held == 0 ? "" : " (" + held + " wait for their disabled endpoint to be enabled)")
                + (deleted == 0 ? "" : "; skipped " + deleted + " whose schedule was deleted")
                + (paused == 0 ? "" : "; skipped " + paused + " whose schedule is paused: resume it, then replay again")
                + (endpointDeleted == 0 ? "" : "; skipped " + endpointDeleted + " whose endpoint was deleted")
                + NL;
    }

    private static String page(Table t, JsonNode list, String what) {
        if (t.isEmpty()) return "no " + what + NL;
        JsonNode data = list.path("data");
        return t
                + (list.path("has_more").asBoolean()
                        ? "more: --starting-after "
                                + data.get(data.size() - 1).path("id").asText() + NL
                        : "");
    }
}
