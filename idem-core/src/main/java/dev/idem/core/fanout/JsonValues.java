package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/** JSON equality as a filter means it: numbers by value ({@code 1} equals {@code 1.0}), the rest structurally. */
final class JsonValues {
    private JsonValues() {}

    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue()) == 0;
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return false;
            for (int i = 0; i < a.size(); i++) if (!same(a.get(i), b.get(i))) return false;
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) return false;
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode other = b.get(e.getKey());
                if (other == null || !same(e.getValue(), other)) return false;
            }
            return true;
        }
        return a.equals(b);
    }
}
