package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.fanout.FilterNode.Op;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Turns a filter's JSON into {@link FilterNode}s, refusing with the path of the first thing that is wrong. */
final class FilterParser {
    static final String OPERATORS = "$eq, $neq, $gt, $gte, $lt, $lte, $in, $nin, $exist, $or, $and, $not";

    private FilterParser() {}

    /** The whole filter: a JSON object, possibly {@code {}}. */
    static FilterNode root(JsonNode filter) {
        return object(filter, "", 0, true);
    }

    private static FilterNode condition(JsonNode n, String path, int depth) {
        if (depth > Filter.MAX_DEPTH)
            throw new InvalidJsonException(path, "the filter nests deeper than " + Filter.MAX_DEPTH + " levels");
        if (n.isObject()) return object(n, path, depth, false);
        if (n.isArray()) return new FilterNode.Contains(list(n, path, depth));
        return new FilterNode.Literal(n);
    }

    private static FilterNode object(JsonNode n, String path, int depth, boolean whole) {
        if (n.isEmpty() && !whole)
            throw new InvalidJsonException(path, "an empty object is not a condition; give a value or operators");
        List<FilterNode> operators = new ArrayList<>();
        List<FilterNode.Field> fields = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            String at = path.isEmpty() ? key : path + "." + key;
            if (isOperator(key)) operators.add(operator(key, e.getValue(), at, depth));
            else fields.add(new FilterNode.Field(segments(key, at), condition(e.getValue(), at, depth + 1)));
        }
        return new FilterNode.Conditions(List.copyOf(operators), List.copyOf(fields));
    }

    /** {@code $…} is an operator, except {@code $} and {@code $.…}, which are paths (Convoy's positional form). */
    private static boolean isOperator(String key) {
        return key.startsWith("$") && !key.equals("$") && !key.startsWith("$.");
    }

    private static List<String> segments(String key, String at) {
        List<String> out = List.of(key.split("\\.", -1));
        if (out.contains(""))
            throw new InvalidJsonException(
                    at, "a path may not be empty or have an empty segment (two dots, or a dot at an end)");
        if (out.size() > 1 && out.get(out.size() - 1).equals("$"))
            throw new InvalidJsonException(at, "a path may not end with $ (it stands for an array's elements)");
        return out;
    }

    private static FilterNode operator(String name, JsonNode operand, String at, int depth) {
        return switch (name) {
            case "$eq" -> new FilterNode.Compare(Op.EQ, operand);
            case "$neq" -> new FilterNode.Compare(Op.NEQ, operand);
            case "$gt" -> ordered(Op.GT, name, operand, at);
            case "$gte" -> ordered(Op.GTE, name, operand, at);
            case "$lt" -> ordered(Op.LT, name, operand, at);
            case "$lte" -> ordered(Op.LTE, name, operand, at);
            case "$in" -> membership(Op.IN, name, operand, at);
            case "$nin" -> membership(Op.NIN, name, operand, at);
            case "$exist" -> {
                if (!operand.isBoolean()) throw new InvalidJsonException(at, "$exist takes true or false");
                yield new FilterNode.Compare(Op.EXIST, operand);
            }
            case "$or" -> new FilterNode.AnyOf(branches(name, operand, at, depth));
            case "$and" -> new FilterNode.AllOf(branches(name, operand, at, depth));
            case "$not" -> new FilterNode.Not(condition(operand, at, depth + 1));
            default ->
                throw new InvalidJsonException(at, "unknown operator " + name + "; the operators are " + OPERATORS);
        };
    }

    private static FilterNode ordered(Op op, String name, JsonNode operand, String at) {
        if (!operand.isNumber() && !operand.isTextual())
            throw new InvalidJsonException(at, name + " takes a number or a string");
        return new FilterNode.Compare(op, operand);
    }

    private static FilterNode membership(Op op, String name, JsonNode operand, String at) {
        if (!operand.isArray() && !operand.isTextual())
            throw new InvalidJsonException(
                    at, name + " takes an array of values (or a string to look for inside a string)");
        return new FilterNode.Compare(op, operand);
    }

    private static List<FilterNode> branches(String name, JsonNode operand, String at, int depth) {
        if (!operand.isArray() || operand.isEmpty())
            throw new InvalidJsonException(at, name + " takes a non-empty array of conditions");
        return list(operand, at, depth);
    }

    private static List<FilterNode> list(JsonNode array, String path, int depth) {
        List<FilterNode> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) out.add(condition(array.get(i), path + "[" + i + "]", depth + 1));
        return List.copyOf(out);
    }
}
