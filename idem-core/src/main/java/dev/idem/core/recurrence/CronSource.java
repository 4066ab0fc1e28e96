package dev.idem.core.recurrence;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cron expressions (5 fields, or 6 with seconds first) as a {@link LocalSource}, parsed and
 * matched by cron-utils.
 *
 * <p>The nicknames {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly},
 * {@code @daily}, {@code @midnight} and {@code @hourly} stand for their 5-field forms.
 *
 * <p>cron-utils is evaluated in UTC on nominal local times, never in the user's zone: that keeps
 * its own DST handling out, and {@link ZonedStream} applies the same gap and overlap conventions
 * as for RRULEs. Day-of-month and day-of-week combine as in Vixie cron: when both fields are
 * restricted (neither starts with {@code *} or is {@code ?}) a day matching either fires, so
 * {@code 0 9 1 * MON} is the 1st of the month and every Monday; otherwise both must match. The
 * OR is built here from two expressions rather than left to the library. A day-of-month list is the union of
 * its elements, {@code L}, {@code L-n}, {@code LW} and {@code nW} ones included ({@code 1,L} is the 1st and the
 * last day): cron-utils silently drops those from a list, so they are matched as expressions of their own. A
 * {@code ?} inside a list is refused in new input ({@link #checkWritten}). Day-of-week {@code L} alone is Saturday,
 * as in Quartz, not cron-utils' Sunday ({@link #lastDayOfWeek}).
 */
final class CronSource implements LocalSource {

    private static final String[] NAMES_5 = {"minute", "hour", "day-of-month", "month", "day-of-week"};
    private static final String[] NAMES_6 = {"second", "minute", "hour", "day-of-month", "month", "day-of-week"};
    private static final String[] WEEKDAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    private static final Map<String, String> NICKNAMES = Map.of(
            "@YEARLY",
            "0 0 1 1 *",
            "@ANNUALLY",
            "0 0 1 1 *",
            "@MONTHLY",
            "0 0 1 * *",
            "@WEEKLY",
            "0 0 * * 0",
            "@DAILY",
            "0 0 * * *",
            "@MIDNIGHT",
            "0 0 * * *",
            "@HOURLY",
            "0 * * * *");
    private static final CronParser PARSER_5 = new CronParser(definition(false));
    private static final CronParser PARSER_6 = new CronParser(definition(true));
    private static final Pattern NEAREST_WEEKDAY = Pattern.compile("([0-9]{1,2})W");
    /** A day-of-week {@code nL} (weekday names as numbers); {@code L} alone is 6 by then ({@link #lastDayOfWeek}). */
    private static final Pattern LAST_WEEKDAY = Pattern.compile("[0-7]L");

    /** Each alternative gives its first match strictly after a time (in UTC), if any. */
    private final List<Alternative> alternatives;

    private CronSource(List<Alternative> alternatives) {
        this.alternatives = alternatives;
    }

    /**
     * Parses an expression as {@link Recurrences#compile} reads it, for new input and stored schedules alike; a
     * {@code ?} inside a list is dropped, as cron-utils read it ({@code ?,MON} as {@code MON}): new input with one is
     * refused by {@link #checkWritten} instead.
     */
    static CronSource parse(String expression) {
        Written w = Written.of(expression);
        String[] fields = w.fields();
        String[] written = w.written();
        String[] names = w.names();
        CronParser parser = fields.length == 5 ? PARSER_5 : PARSER_6;
        int dom = fields.length - 3;
        int dow = fields.length - 1;
        for (int i = 0; i < fields.length; i++) {
            if (w.questionMarkInList(i)) {
                fields[i] = String.join(
                        ",",
                        List.of(fields[i].split(",")).stream()
                                .filter(e -> !e.equals("?"))
                                .toList());
            }
        }
        check(parser, fields, written, names);
        boolean either = restricted(fields[dom]) && restricted(fields[dow]);
        List<Alternative> alternatives = new ArrayList<>();
        List<String> dayParts = dayOfMonthParts(fields[dom]);
        for (String days : dayParts) {
            String[] part = replace(fields, dom, days);
            if (dayParts.size() > 1) {
                check(parser, part, written, names);
            }
            alternatives.add(alternative(parser, either ? replace(part, dow, "*") : part, dom));
        }
        if (either) {
            alternatives.add(alternative(parser, replace(fields, dom, "*"), dom));
        }
        return new CronSource(alternatives);
    }

    /**
     * A day-of-month list split where cron-utils would go wrong: it matches only a list's plain elements and
     * silently drops {@code L}, {@code L-n}, {@code LW} and {@code nW} ones ({@code 1,L} fired on the 1st only,
     * {@code 1,31W} on the 31st whatever its weekday, {@code L,LW} never). Each such element becomes a part of its
     * own and the plain elements stay one list; the cron fires on the union of its parts, which is what a list
     * means. A field that is not a list, or has no such element, is one part.
     */
    private static List<String> dayOfMonthParts(String field) {
        if (!field.contains(",")) {
            return List.of(field);
        }
        List<String> parts = new ArrayList<>();
        List<String> plain = new ArrayList<>();
        for (String element : field.split(",")) {
            if (element.contains("L") || element.contains("W")) {
                parts.add(element);
            } else {
                plain.add(element);
            }
        }
        if (!plain.isEmpty()) {
            parts.add(0, String.join(",", plain));
        }
        return parts;
    }

    /**
     * Refuses what {@link #parse} reads only so that schedules stored before still load: a {@code ?} inside a list
     * (it stands alone; cron-utils read day-of-week {@code ?,MON} as {@code MON} and threw on day-of-month
     * {@code ?,L}), and a day-of-week {@code L} in a range, step or {@code L-n} ({@link #oddLastDayOfWeek}).
     */
    static void checkWritten(String expression) {
        Written w = Written.of(expression);
        for (int i = 0; i < w.fields().length; i++) {
            if (w.questionMarkInList(i)) {
                throw invalid("cron " + w.names()[i] + " field '" + w.written()[i]
                        + "' is invalid: ? stands alone (it means no restriction), never in a list");
            }
        }
        int dow = w.fields().length - 1;
        if (List.of(w.fields()[dow].split(",")).stream().anyMatch(CronSource::oddLastDayOfWeek)) {
            throw invalid("cron day-of-week field '" + w.written()[dow] + "' is invalid: L stands alone (Saturday,"
                    + " the last day of the week) or follows a weekday (5L: the month's last Friday), never in a"
                    + " range, step or offset");
        }
    }

    /**
     * The constructs of {@code expression} that this version reads differently from earlier ones, each with what it
     * means now; empty for most crons. Found with {@link #parse}'s own splitting, so it names exactly what parse now
     * matches in another way: a day-of-month list that {@link #dayOfMonthParts} splits (it has an {@code L},
     * {@code L-n}, {@code LW} or {@code nW} element), and a day-of-week {@code L} alone ({@link #lastDayOfWeek}).
     */
    static List<String> changedReadings(String expression) {
        Written w = Written.of(expression);
        int dom = w.fields().length - 3;
        int dow = w.fields().length - 1;
        List<String> out = new ArrayList<>();
        if (dayOfMonthParts(w.fields()[dom]).size() > 1) {
            out.add("day-of-month list '" + w.written()[dom] + "' fires on every element, its L, L-n, LW and nW ones"
                    + " included (earlier versions did not honour every such element)");
        }
        if (List.of(w.written()[dow].split(",")).contains("L")) {
            out.add("day-of-week L in '" + w.written()[dow] + "' is Saturday, the last day of the week as in Quartz"
                    + " (earlier versions read L alone as Sunday)");
        }
        return out;
    }

    /**
     * An expression's fields: as written (upper case, a nickname expanded) and as given to cron-utils (weekday
     * names as numbers), with the fields' names.
     */
    private record Written(String[] fields, String[] written, String[] names) {
        static Written of(String expression) {
            if (expression == null || expression.isBlank()) {
                throw invalid(
                        "cron expression is empty; give 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first");
            }
            String text = expression.strip().toUpperCase(Locale.ROOT);
            text = NICKNAMES.getOrDefault(text, text);
            String[] fields = text.split("\\s+");
            if (fields.length != 5 && fields.length != 6) {
                throw invalid("cron expression '" + expression + "' has " + fields.length
                        + " fields; give 5 (minute hour day-of-month month day-of-week) or 6 with seconds first");
            }
            String[] written = fields.clone();
            fields[fields.length - 1] = lastDayOfWeek(numericWeekdays(fields[fields.length - 1]));
            return new Written(fields, written, fields.length == 5 ? NAMES_5 : NAMES_6);
        }

        boolean questionMarkInList(int field) {
            return fields[field].contains(",")
                    && List.of(fields[field].split(",")).contains("?");
        }
    }

    /** cron-utils jumps field by field and has no per-date loop to count, so {@code budget} does not apply. */
    @Override
    public Cursor open(LocalDateTime fromInclusive, LocalDateTime toInclusive, long budget) {
        LocalDateTime to = toInclusive.isAfter(END_OF_TIME) ? END_OF_TIME : toInclusive;
        return new Cursor() {
            private ZonedDateTime last =
                    fromInclusive.minusSeconds(1).withNano(0).atZone(ZoneOffset.UTC);
            /**
             * Each alternative's first match after some earlier {@code last}, still its first after this one while
             * it lies ahead; {@code null} once it has none. An alternative that never matches (the day-of-month
             * half of {@code 0 0 31 4 MON}) is searched once per cursor, not once per occurrence.
             */
            private final ZonedDateTime[] ahead = new ZonedDateTime[alternatives.size()];

            private final boolean[] searched = new boolean[alternatives.size()];
            private long searches;

            @Override
            public long examined() {
                return searches;
            }

            @Override
            public LocalDateTime next() {
                if (last == null) {
                    return null;
                }
                ZonedDateTime best = null;
                for (int i = 0; i < ahead.length; i++) {
                    if (!searched[i] || (ahead[i] != null && !ahead[i].isAfter(last))) {
                        ahead[i] = alternatives.get(i).nextExecution(last).orElse(null);
                        searched[i] = true;
                        searches++;
                    }
                    if (ahead[i] != null && (best == null || ahead[i].isBefore(best))) {
                        best = ahead[i];
                    }
                }
                last = best == null || best.toLocalDateTime().isAfter(to) ? null : best;
                return last == null ? null : last.toLocalDateTime();
            }
        };
    }

    private static void check(CronParser parser, String[] fields, String[] written, String[] names) {
        try {
            parser.parse(String.join(" ", fields));
        } catch (IllegalArgumentException whole) {
            for (int i = 0; i < fields.length; i++) {
                String[] single = new String[fields.length];
                java.util.Arrays.fill(single, "*");
                single[i] = fields[i];
                try {
                    parser.parse(String.join(" ", single));
                } catch (IllegalArgumentException e) {
                    throw invalid("cron " + names[i] + " field '" + written[i] + "' is invalid: " + e.getMessage());
                }
            }
            throw invalid("cron expression '" + String.join(" ", written) + "' is invalid: " + whole.getMessage());
        }
    }

    /** A day-of-month {@code nW} is matched by {@link CronNearestWeekday}, everything else by cron-utils. */
    private static Alternative alternative(CronParser parser, String[] fields, int dom) {
        Matcher w = NEAREST_WEEKDAY.matcher(fields[dom]);
        if (w.matches()) {
            return new CronNearestWeekday(
                    Integer.parseInt(w.group(1)), executionTime(parser, replace(fields, dom, "*")))::nextExecution;
        }
        return executionTime(parser, fields)::nextExecution;
    }

    private interface Alternative {
        Optional<ZonedDateTime> nextExecution(ZonedDateTime after);
    }

    private static ExecutionTime executionTime(CronParser parser, String[] fields) {
        Cron cron = parser.parse(String.join(" ", fields));
        return ExecutionTime.forCron(cron);
    }

    /**
     * cron-utils reads SUN as 7, which breaks ranges such as SUN-SAT; Sunday is 0 here except as
     * a range's end (MON-SUN), where 7 keeps the range ascending.
     */
    private static String numericWeekdays(String field) {
        String out = field.replace("-SUN", "-7");
        for (int i = 0; i < WEEKDAYS.length; i++) {
            out = out.replace(WEEKDAYS[i], Integer.toString(i));
        }
        return out;
    }

    /**
     * Day-of-week {@code L} alone (a list element of its own) is Quartz's "last day of the week", Saturday, which is
     * 6 here; cron-utils reads it as Sunday ({@code 0 12 * * L} fired on Sundays). Stored schedules with it now fire
     * on Saturdays, as written. {@code nL}, the last weekday n of the month, is left to cron-utils.
     */
    private static String lastDayOfWeek(String field) {
        if (!field.contains("L")) {
            return field;
        }
        return String.join(
                ",",
                List.of(field.split(",", -1)).stream()
                        .map(e -> e.equals("L") ? "6" : e)
                        .toList());
    }

    /**
     * Whether a day-of-week element (weekday names as numbers, {@code L} alone already 6) uses {@code L} other than
     * as {@code nL}: cron-utils reads {@code L-2} as Sunday, and {@code 5-L} threw ClassCastException.
     */
    private static boolean oddLastDayOfWeek(String element) {
        return element.contains("L") && !LAST_WEEKDAY.matcher(element).matches();
    }

    private static boolean restricted(String field) {
        return !field.startsWith("*") && !field.equals("?");
    }

    private static String[] replace(String[] fields, int index, String value) {
        String[] copy = fields.clone();
        copy[index] = value;
        return copy;
    }

    private static CronDefinition definition(boolean seconds) {
        CronDefinitionBuilder b = CronDefinitionBuilder.defineCron();
        if (seconds) {
            b = b.withSeconds().withValidRange(0, 59).withStrictRange().and();
        }
        return b.withMinutes()
                .withValidRange(0, 59)
                .withStrictRange()
                .and()
                .withHours()
                .withValidRange(0, 23)
                .withStrictRange()
                .and()
                .withDayOfMonth()
                .withValidRange(1, 31)
                .supportsL()
                .supportsW()
                .supportsLW()
                .supportsQuestionMark()
                .withStrictRange()
                .and()
                .withMonth()
                .withValidRange(1, 12)
                .withStrictRange()
                .and()
                .withDayOfWeek()
                .withValidRange(0, 7)
                .withMondayDoWValue(1)
                .withIntMapping(7, 0)
                .supportsHash()
                .supportsL()
                .supportsQuestionMark()
                .withStrictRange()
                .and()
                .instance();
    }

    static InvalidRecurrenceException invalid(String message) {
        return new InvalidRecurrenceException("cron", "invalid_cron", message);
    }
}
