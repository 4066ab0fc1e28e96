package dev.idem.client.model;

import dev.idem.client.internal.Query;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters and the page size of a list call: {@code status}, {@code limit} (1 to 100, default 10),
 * {@code starting_after} (the cursor: the last id of the previous page), for deliveries {@code schedule_id},
 * {@code endpoint_id}, {@code application}, {@code event_type}, {@code since} and {@code until}, for endpoints
 * {@code application}, for messages {@code event_type}, {@code application}, {@code since} and {@code until}.
 * {@link Builder#param} adds a filter this client does not know yet.
 */
public final class ListParams {
    private final Map<String, String> params;

    private ListParams(Map<String, String> params) {
        this.params = Map.copyOf(params);
    }

    /** No filter, the API's default page size. */
    public static ListParams none() {
        return new ListParams(Map.of());
    }

    public static Builder builder() {
        return new Builder(new LinkedHashMap<>());
    }

    /** The same filters starting after {@code id}: the next page's parameters. */
    public ListParams startingAfter(String id) {
        Map<String, String> next = new LinkedHashMap<>(params);
        next.put("starting_after", id);
        return new ListParams(next);
    }

    /** The query string, {@code ?a=b&c=d}, or empty; names sorted so one filter always reads the same. */
    public String query() {
        return Query.of(params);
    }

    @Override
    public String toString() {
        return "ListParams" + params;
    }

    public static final class Builder {
        private final Map<String, String> params;

        private Builder(Map<String, String> params) {
            this.params = params;
        }

        /** A schedule or delivery status, as the API spells it ({@code active}, {@code dead}, …). */
        public Builder status(String status) {
            return param("status", status);
        }

        /** Items per page, 1 to 100. */
        public Builder limit(int limit) {
            if (limit < 1 || limit > 100)
                throw new IllegalArgumentException("limit must be between 1 and 100, got " + limit);
            return param("limit", Integer.toString(limit));
        }

        public Builder startingAfter(String id) {
            return param("starting_after", id);
        }

        /** Deliveries of one schedule. */
        public Builder scheduleId(String scheduleId) {
            return param("schedule_id", scheduleId);
        }

        /** Endpoints, messages or messages' deliveries of one application (its id or uid). */
        public Builder application(String idOrUid) {
            return param("application", idOrUid);
        }

        /** Messages' deliveries to one endpoint ({@code ep_…}). */
        public Builder endpointId(String endpointId) {
            return param("endpoint_id", endpointId);
        }

        /** Messages of one event type ({@code invoice.paid}), or the deliveries of such messages. */
        public Builder eventType(String eventType) {
            return param("event_type", eventType);
        }

        /** Messages sent, or deliveries created, at or after {@code time}. */
        public Builder since(java.time.Instant time) {
            return param("since", time == null ? null : time.toString());
        }

        /** Messages sent, or deliveries created, before {@code time}. */
        public Builder until(java.time.Instant time) {
            return param("until", time == null ? null : time.toString());
        }

        /** Any query parameter; a null value removes it. */
        public Builder param(String name, String value) {
            if (value == null) params.remove(name);
            else params.put(name, value);
            return this;
        }

        public ListParams build() {
            return new ListParams(params);
        }
    }
}
