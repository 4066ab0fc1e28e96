package dev.idem.receiver.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON to read a dedup key out of a body without a JSON library. Not public API. Recursive descent, so
 * nesting is limited to {@value #MAX_DEPTH} levels (Jackson's default limit too): a body nested deeper is not read
 * (as a body that is not JSON), instead of exhausting the thread's stack.
 */
public final class MiniJson {
    /** The deepest nesting of arrays and objects read. */
    public static final int MAX_DEPTH = 1000;

    private final String s;
    private int i;
    private int depth;

    private MiniJson(String s) {
        this.s = s;
    }

    /**
     * The string or number at a dotted path of objects ({@code data.object.id}), as text; null when the body is
     * not JSON, is nested deeper than {@value #MAX_DEPTH} levels, the path is absent, or the value is not a string
     * or number.
     */
    public static String scalarAt(byte[] body, String dottedPath) {
        Object v;
        try {
            MiniJson p = new MiniJson(new String(body, StandardCharsets.UTF_8));
            v = p.value();
            p.ws();
            if (p.i != p.s.length()) return null;
        } catch (RuntimeException e) {
            return null;
        }
        for (String part : dottedPath.split("\\.")) {
            if (!(v instanceof Map<?, ?> m)) return null;
            v = m.get(part);
        }
        if (v instanceof java.math.BigDecimal d) return d.toPlainString();
        return v instanceof String ? (String) v : null;
    }

    private Object value() {
        ws();
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return nested(true);
            case '[':
                return nested(false);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Object nested(boolean object) {
        if (++depth > MAX_DEPTH)
            throw new IllegalArgumentException("JSON nested deeper than " + MAX_DEPTH + " levels at offset " + i);
        Object v = object ? object() : array();
        depth--;
        return v;
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (s.charAt(i) == '}') {
            i++;
            return m;
        }
        while (true) {
            ws();
            String k = string();
            ws();
            expect(':');
            m.put(k, value());
            ws();
            if (s.charAt(i) == ',') {
                i++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        i++;
        ws();
        if (s.charAt(i) == ']') {
            i++;
            return l;
        }
        while (true) {
            l.add(value());
            ws();
            if (s.charAt(i) == ',') {
                i++;
                continue;
            }
            expect(']');
            return l;
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') return b.toString();
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> b.append(e);
            }
        }
    }

    private Number number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
        String t = s.substring(start, i);
        if (t.isEmpty()) throw new IllegalArgumentException("not JSON at " + start);
        return new java.math.BigDecimal(t);
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) throw new IllegalArgumentException("not JSON at " + i);
        i += word.length();
        return v;
    }

    private void expect(char c) {
        if (s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
        i++;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }
}
