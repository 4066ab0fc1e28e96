package dev.idem.core.fanout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;

/**
 * An endpoint's filter over a message's payload: the endpoint receives the message only when the filter matches. The
 * syntax is the one Convoy and Hookdeck Outpost share ({@code docs/endpoints.md} has the full reference):
 *
 * <ul>
 *   <li>a key is a path into the payload ({@code "data.amount"}, or nested objects {@code {"data": {"amount": …}}});
 *       its value is a literal (equal, or for an array: contains) or an object of operators {@code $eq $neq $gt $gte
 *       $lt $lte $in $nin $exist $or $and $not}, all of which must hold;
 *   <li>{@code $or}, {@code $and} (arrays of conditions) and {@code $not} (one) also stand at the top;
 *   <li>a path through an array matches when any element matches ({@code "items.sku"}; Convoy's {@code "items.$.sku"}
 *       means the same, and {@code "items.0.sku"} names one element);
 *   <li>{@code {}} matches every payload.
 * </ul>
 *
 * <p>It is parsed once, when an endpoint is created or changed, into a small tree ({@link FilterNode}): a bad filter is
 * refused then, with the path of what is wrong ({@link InvalidJsonException}), and matching a payload walks the tree only.
 */
public final class Filter {
    /** How deep conditions may nest; deeper filters are refused (no payload needs it, and it bounds recursion). */
    public static final int MAX_DEPTH = 32;

    private static final ObjectMapper JSON = new ObjectMapper();
    private final FilterNode root;
    private final String json;

    private Filter(FilterNode root, String json) {
        this.root = root;
        this.json = json;
    }

    /**
     * Parses a filter.
     *
     * @throws InvalidJsonException naming the path and operator that is wrong
     */
    public static Filter parse(JsonNode filter) {
        Objects.requireNonNull(filter, "filter");
        if (!filter.isObject()) throw new InvalidJsonException("", "a filter must be a JSON object");
        return new Filter(FilterParser.root(filter), filter.toString());
    }

    /** Parses a filter from its JSON text (as {@link #json()} gives it). */
    public static Filter parse(String json) {
        try {
            return parse(JSON.readTree(json));
        } catch (JsonProcessingException e) {
            throw new InvalidJsonException("", "a filter must be JSON: " + e.getOriginalMessage());
        }
    }

    /** Whether the payload matches; a payload that is not JSON ({@code null}) matches no filter but {@code {}}. */
    public boolean matches(JsonNode payload) {
        if (payload == null || payload.isMissingNode()) return root.isEmpty();
        return root.test(payload);
    }

    /** The filter as compact JSON text, as given: what is stored and shown. */
    public String json() {
        return json;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Filter f && f.json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "Filter" + json;
    }
}
