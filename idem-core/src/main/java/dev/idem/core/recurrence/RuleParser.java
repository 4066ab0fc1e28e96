package dev.idem.core.recurrence;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses an RFC 5545 RECUR value into a {@link Rule}, rejecting what RFC 5545 forbids with a
 * message that names the offending part. Parsing is locale-independent on purpose.
 */
final class RuleParser {

    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss", Locale.ROOT);
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuuMMdd", Locale.ROOT);
    private static final List<String> PARTS = List.of(
            "FREQ",
            "INTERVAL",
            "COUNT",
            "UNTIL",
            "WKST",
            "BYSECOND",
            "BYMINUTE",
            "BYHOUR",
            "BYDAY",
            "BYMONTHDAY",
            "BYYEARDAY",
            "BYWEEKNO",
            "BYMONTH",
            "BYSETPOS");

    private RuleParser() {}

    static Rule parse(String text) {
        if (text == null || text.isBlank()) {
            throw invalid("rrule is empty; give a rule such as FREQ=DAILY;BYHOUR=9");
        }
        String body = text.strip();
        if (body.regionMatches(true, 0, "RRULE:", 0, 6)) {
            body = body.substring(6);
        }
        Map<String, String> parts = new HashMap<>();
        for (String piece : body.split(";", -1)) {
            if (piece.isBlank()) {
                continue;
            }
            int eq = piece.indexOf('=');
            if (eq <= 0 || eq == piece.length() - 1) {
                throw invalid("rrule part '" + piece + "' is not NAME=VALUE");
            }
            String name = piece.substring(0, eq).strip().toUpperCase(Locale.ROOT);
            if (!PARTS.contains(name)) {
                throw invalid("rrule part " + name + " is not supported; known parts: " + String.join(", ", PARTS));
            }
            if (parts.put(name, piece.substring(eq + 1).strip().toUpperCase(Locale.ROOT)) != null) {
                throw invalid("rrule part " + name + " appears twice");
            }
        }
        String freqText = parts.get("FREQ");
        if (freqText == null) {
            throw invalid("rrule needs FREQ (SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)");
        }
        Frequency freq;
        try {
            freq = Frequency.valueOf(freqText);
        } catch (IllegalArgumentException e) {
            throw invalid("rrule FREQ=" + freqText
                    + " is unknown; use SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY");
        }
        Rule rule = new Rule(
                freq,
                parts.containsKey("INTERVAL") ? positive("INTERVAL", parts.get("INTERVAL")) : 1,
                parts.containsKey("COUNT") ? positive("COUNT", parts.get("COUNT")) : null,
                parts.containsKey("UNTIL") ? until(parts.get("UNTIL")) : null,
                parts.containsKey("WKST") ? weekday("WKST", parts.get("WKST")) : DayOfWeek.MONDAY,
                ints(parts, "BYSECOND", 0, 59, false),
                ints(parts, "BYMINUTE", 0, 59, false),
                ints(parts, "BYHOUR", 0, 23, false),
                parts.containsKey("BYDAY") ? byDay(parts.get("BYDAY")) : null,
                ints(parts, "BYMONTHDAY", 1, 31, true),
                ints(parts, "BYYEARDAY", 1, 366, true),
                ints(parts, "BYWEEKNO", 1, 53, true),
                ints(parts, "BYMONTH", 1, 12, false),
                ints(parts, "BYSETPOS", 1, 366, true));
        checkCombinations(rule);
        return rule;
    }

    private static void checkCombinations(Rule r) {
        Frequency f = r.freq();
        if (r.byWeekNo() != null && f != Frequency.YEARLY) {
            throw invalid("rrule BYWEEKNO is only allowed with FREQ=YEARLY (RFC 5545)");
        }
        if (r.byYearDay() != null && (f == Frequency.DAILY || f == Frequency.WEEKLY || f == Frequency.MONTHLY)) {
            throw invalid("rrule BYYEARDAY is not allowed with FREQ=" + f + " (RFC 5545)");
        }
        if (r.byMonthDay() != null && f == Frequency.WEEKLY) {
            throw invalid("rrule BYMONTHDAY is not allowed with FREQ=WEEKLY (RFC 5545)");
        }
        if (r.byDay() != null && r.byDay().stream().anyMatch(d -> d.ordinal() != 0)) {
            if (f != Frequency.MONTHLY && f != Frequency.YEARLY) {
                throw invalid(
                        "rrule BYDAY with a number (like +1MO) needs FREQ=MONTHLY or YEARLY; use plain weekdays with FREQ="
                                + f);
            }
            if (f == Frequency.YEARLY && r.byWeekNo() != null) {
                throw invalid("rrule BYDAY with a number cannot be combined with BYWEEKNO (RFC 5545)");
            }
        }
    }

    private static int positive(String part, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw invalid("rrule " + part + "=" + value + " must be a positive whole number");
    }

    private static int[] ints(Map<String, String> parts, String part, int min, int max, boolean signed) {
        String value = parts.get(part);
        if (value == null) {
            return null;
        }
        String[] items = value.split(",", -1);
        int[] out = new int[items.length];
        for (int i = 0; i < items.length; i++) {
            int n;
            try {
                n = Integer.parseInt(items[i].strip());
            } catch (NumberFormatException e) {
                throw invalid("rrule " + part + " value '" + items[i] + "' is not a number");
            }
            int abs = Math.abs(n);
            if (abs < min || abs > max || (n < 0 && !signed) || (n == 0 && min > 0)) {
                String range = signed ? min + ".." + max + " or -" + max + "..-" + min : min + ".." + max;
                throw invalid("rrule " + part + " value " + n + " is out of range; allowed: " + range);
            }
            out[i] = n;
        }
        return out;
    }

    private static List<WeekdayNum> byDay(String value) {
        List<WeekdayNum> out = new ArrayList<>();
        for (String item : value.split(",", -1)) {
            String s = item.strip();
            if (s.length() < 2) {
                throw invalid("rrule BYDAY value '" + item + "' is not a weekday such as MO, +2TU or -1FR");
            }
            DayOfWeek day = weekday("BYDAY", s.substring(s.length() - 2));
            int ordinal = 0;
            String num = s.substring(0, s.length() - 2);
            if (!num.isEmpty()) {
                try {
                    ordinal = Integer.parseInt(num);
                } catch (NumberFormatException e) {
                    throw invalid("rrule BYDAY value '" + item + "' is not a weekday such as MO, +2TU or -1FR");
                }
                if (ordinal == 0 || Math.abs(ordinal) > 53) {
                    throw invalid("rrule BYDAY value '" + item + "': the number must be 1..53 or -53..-1");
                }
            }
            out.add(new WeekdayNum(ordinal, day));
        }
        return List.copyOf(out);
    }

    static DayOfWeek weekday(String part, String code) {
        switch (code) {
            case "MO":
                return DayOfWeek.MONDAY;
            case "TU":
                return DayOfWeek.TUESDAY;
            case "WE":
                return DayOfWeek.WEDNESDAY;
            case "TH":
                return DayOfWeek.THURSDAY;
            case "FR":
                return DayOfWeek.FRIDAY;
            case "SA":
                return DayOfWeek.SATURDAY;
            case "SU":
                return DayOfWeek.SUNDAY;
            default:
                throw invalid("rrule " + part + " value '" + code + "' is not one of MO, TU, WE, TH, FR, SA, SU");
        }
    }

    private static Until until(String value) {
        try {
            if (value.endsWith("Z")) {
                return Until.of(LocalDateTime.parse(value.substring(0, value.length() - 1), DATE_TIME)
                        .toInstant(ZoneOffset.UTC));
            }
            if (value.length() == 8) {
                return new Until(null, null, LocalDate.parse(value, DATE));
            }
            return new Until(null, LocalDateTime.parse(value, DATE_TIME), null);
        } catch (DateTimeParseException e) {
            throw invalid(
                    "rrule UNTIL=" + value
                            + " is not a date (19971224), local date-time (19971224T000000) or UTC date-time (19971224T000000Z)");
        }
    }

    static InvalidRecurrenceException invalid(String message) {
        return new InvalidRecurrenceException("rrule", "invalid_rrule", message);
    }
}
