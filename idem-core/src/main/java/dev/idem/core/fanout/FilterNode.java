package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

/**
 * One node of a parsed {@link Filter}: a condition on one JSON value. {@link #test} gets {@code null} when the path
 * leading to the value is absent from the payload, so {@code $exist}, {@code $neq} and {@code $nin} can tell "absent"
 * from "present and different".
 */
sealed interface FilterNode {
    boolean test(JsonNode value);

    /** Whether this is the empty filter {@code {}}, which matches everything. */
    default boolean isEmpty() {
        return false;
    }

    /** A bare scalar: equal to the value, or, when the value is an array, to one of its elements. */
    record Literal(JsonNode literal) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            if (v == null) return false;
            if (v.isArray()) return any(v, e -> JsonValues.same(e, literal));
            return JsonValues.same(v, literal);
        }
    }

    /** A bare array: the value is an array, and each of these conditions holds for at least one of its elements. */
    record Contains(List<FilterNode> each) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            if (v == null || !v.isArray()) return false;
            for (FilterNode c : each) if (!any(v, c::test)) return false;
            return true;
        }
    }

    /** A JSON object: every operator holds for the value, and every field condition for the value's fields. */
    record Conditions(List<FilterNode> operators, List<Field> fields) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            for (FilterNode op : operators) if (!op.test(v)) return false;
            for (Field f : fields) if (!f.test(v)) return false;
            return true;
        }

        @Override
        public boolean isEmpty() {
            return operators.isEmpty() && fields.isEmpty();
        }
    }

    /**
     * The value at {@code path} below the value tested holds {@code condition}. Through an array the path matches when
     * it matches through any element, except that a segment of digits names one element and {@code $} (Convoy's
     * positional form) stands for "each element".
     */
    record Field(List<String> path, FilterNode condition) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            return walk(v, 0);
        }

        private boolean walk(JsonNode v, int i) {
            if (i == path.size()) return condition.test(v);
            String segment = path.get(i);
            if (v != null && v.isArray()) {
                if (segment.equals("$")) return any(v, e -> walk(e, i + 1));
                if (isIndex(segment)) return walk(v.get(Integer.parseInt(segment)), i + 1);
                return any(v, e -> walk(e, i));
            }
            JsonNode child = v != null && v.isObject() && !segment.equals("$") ? v.get(segment) : null;
            return walk(child, i + 1);
        }

        private static boolean isIndex(String s) {
            if (s.isEmpty() || s.length() > 9) return false;
            for (int i = 0; i < s.length(); i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
            return true;
        }
    }

    /** The comparison operators. */
    enum Op {
        EQ,
        NEQ,
        GT,
        GTE,
        LT,
        LTE,
        IN,
        NIN,
        EXIST
    }

    /** {@code value <op> operand}. Operands were checked by the parser ({@link FilterParser}). */
    record Compare(Op op, JsonNode operand) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            return switch (op) {
                case EQ -> v != null && JsonValues.same(v, operand);
                case NEQ -> v == null || !JsonValues.same(v, operand);
                case GT -> ordered(v, c -> c > 0);
                case GTE -> ordered(v, c -> c >= 0);
                case LT -> ordered(v, c -> c < 0);
                case LTE -> ordered(v, c -> c <= 0);
                case IN -> in(v);
                case NIN -> !in(v);
                case EXIST -> (v != null) == operand.booleanValue();
            };
        }

        /** Numbers with numbers, strings with strings; an array when one of its elements compares so. */
        private boolean ordered(JsonNode v, java.util.function.IntPredicate holds) {
            if (v == null) return false;
            if (v.isArray()) return any(v, e -> ordered(e, holds));
            if (v.isNumber() && operand.isNumber())
                return holds.test(v.decimalValue().compareTo(operand.decimalValue()));
            if (v.isTextual() && operand.isTextual())
                return holds.test(Integer.signum(v.asText().compareTo(operand.asText())));
            return false;
        }

        /**
         * With an array operand: the value (or, for an array value, one of its elements) equals one of the operand's
         * elements. With a string operand: the value is a string containing it, or an array with it as an element.
         */
        private boolean in(JsonNode v) {
            if (v == null) return false;
            if (operand.isArray()) {
                if (v.isArray()) return any(v, e -> any(operand, o -> JsonValues.same(e, o)));
                return any(operand, o -> JsonValues.same(v, o));
            }
            if (v.isTextual()) return v.asText().contains(operand.asText());
            return v.isArray() && any(v, e -> JsonValues.same(e, operand));
        }
    }

    /** {@code $or}: at least one of the conditions holds for the value. */
    record AnyOf(List<FilterNode> conditions) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            for (FilterNode c : conditions) if (c.test(v)) return true;
            return false;
        }
    }

    /** {@code $and}: every condition holds for the value. */
    record AllOf(List<FilterNode> conditions) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            for (FilterNode c : conditions) if (!c.test(v)) return false;
            return true;
        }
    }

    /** {@code $not}: the condition does not hold for the value. */
    record Not(FilterNode condition) implements FilterNode {
        @Override
        public boolean test(JsonNode v) {
            return !condition.test(v);
        }
    }

    private static boolean any(JsonNode array, Predicate<JsonNode> p) {
        for (Iterator<JsonNode> it = array.elements(); it.hasNext(); ) if (p.test(it.next())) return true;
        return false;
    }
}
