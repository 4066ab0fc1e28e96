package dev.idem.engine.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@link java.net.URI} reads loosely in an endpoint's authority ({@code host:port}): it takes {@code h:} and
 * {@code h:019001} for ports, and reads {@code 127.1} as a registry name with no host at all. Browsers and curl read
 * a host that ends in a number as an IPv4 address in the WHATWG URL standard's forms (one to four parts, each
 * decimal, octal with a leading 0, or hexadecimal with 0x), while Java's resolver reads {@code 2130706433} and
 * {@code 127.1} as 127.0.0.1, {@code 0177.0.0.1} as 177.0.0.1 and {@code 0x7f000001} as no address: one URL, three
 * destinations. So an endpoint must write an IPv4 address as four decimal numbers, and any other numeric form is
 * refused with the address it would mean.
 */
public final class Authority {
    private Authority() {}

    /** The host as written in {@code rawAuthority}: without credentials, port or IPv6 brackets. */
    public static String host(String rawAuthority) {
        String a = rawAuthority.substring(rawAuthority.lastIndexOf('@') + 1);
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            return close < 0 ? a.substring(1) : a.substring(1, close);
        }
        int colon = a.lastIndexOf(':');
        return colon < 0 ? a : a.substring(0, colon);
    }

    /** Why the port written in {@code rawAuthority} is not plain digits without a leading zero, or null. */
    public static String portProblem(String rawAuthority) {
        String a = rawAuthority.substring(rawAuthority.lastIndexOf('@') + 1);
        int colon = a.lastIndexOf(':');
        if (colon < 0 || (a.startsWith("[") && colon < a.indexOf(']'))) return null;
        String port = a.substring(colon + 1);
        if (port.isEmpty())
            return "endpoint port is empty ('" + a + "'): give a port between 1 and 65535, or no ':' for the"
                    + " scheme's default";
        String plain = port.replaceFirst("^0+(?=.)", "");
        if (!plain.equals(port) && !plain.equals("0") && port.chars().allMatch(Character::isDigit))
            return "endpoint port '" + port + "' has a leading zero: write it as " + plain;
        return null;
    }

    /**
     * Why {@code host} is refused as an IPv4 address not written as four decimal numbers ({@code 127.1},
     * {@code 0x7f000001}, {@code 0177.0.0.1}, {@code 2130706433}, {@code 127.0.0.1.}), or null: a host name, an IPv6
     * address, or an address in that one form.
     */
    public static String nonCanonicalIpv4(String host) {
        if (host.isEmpty() || host.indexOf(':') >= 0) return null;
        List<String> parts =
                new ArrayList<>(List.of(host.toLowerCase(Locale.ROOT).split("\\.", -1)));
        boolean trailingDot = parts.size() > 1 && parts.get(parts.size() - 1).isEmpty();
        if (trailingDot) parts.remove(parts.size() - 1);
        if (!endsInANumber(parts.get(parts.size() - 1))) return null;
        long[] values = new long[parts.size()];
        boolean canonical = parts.size() == 4 && !trailingDot;
        for (int i = 0; i < parts.size(); i++) {
            String p = parts.get(i);
            values[i] = number(p);
            if (values[i] < 0) return notAnAddress(host);
            canonical &= p.equals(Long.toString(values[i]));
        }
        if (values.length > 4) return notAnAddress(host);
        for (int i = 0; i < values.length - 1; i++) if (values[i] > 255) return notAnAddress(host);
        if (values[values.length - 1] >= 1L << (8 * (5 - values.length))) return notAnAddress(host);
        if (canonical) return null;
        long address = values[values.length - 1];
        for (int i = 0; i < values.length - 1; i++) address += values[i] << (8 * (3 - i));
        String dotted =
                (address >> 24) + "." + ((address >> 16) & 255) + "." + ((address >> 8) & 255) + "." + (address & 255);
        return "endpoint host '" + host + "' is an IPv4 address in a short, octal or hexadecimal form, which"
                + " resolvers read differently (browsers and curl as " + dotted + "): write it as four decimal"
                + " numbers, " + dotted;
    }

    /** The WHATWG URL standard's test: the last label is decimal digits, or 0x followed by hexadecimal digits. */
    private static boolean endsInANumber(String label) {
        if (label.isEmpty()) return false;
        if (label.chars().allMatch(c -> c >= '0' && c <= '9')) return true;
        return label.startsWith("0x") && label.chars().skip(2).allMatch(c -> Character.digit(c, 16) >= 0);
    }

    /** A part's value (0x hexadecimal, leading-0 octal, else decimal), or -1 when it is none or too large. */
    private static long number(String part) {
        int radix = 10;
        String digits = part;
        if (part.startsWith("0x")) {
            radix = 16;
            digits = part.substring(2);
        } else if (part.length() > 1 && part.startsWith("0")) {
            radix = 8;
            digits = part.substring(1);
        }
        if (digits.isEmpty()) return part.isEmpty() ? -1 : 0;
        if (digits.length() > 12) return -1;
        for (int i = 0; i < digits.length(); i++) if (Character.digit(digits.charAt(i), radix) < 0) return -1;
        return Long.parseLong(digits, radix);
    }

    private static String notAnAddress(String host) {
        return "endpoint host '" + host + "' ends in a number but is not an IPv4 address: give a host name, or an"
                + " address as four decimal numbers such as 93.184.216.34";
    }
}
