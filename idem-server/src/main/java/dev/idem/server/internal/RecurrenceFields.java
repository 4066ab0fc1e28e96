package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.CatchUp;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.InvalidRecurrenceException;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.recurrence.Recurrences;
import dev.idem.core.recurrence.RuleDefaults;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The recurrence fields of a schedule or a preview: {@code rrule|cron}, {@code timezone}, {@code dtstart}, {@code exdates}, {@code until}, {@code count}. */
final class RecurrenceFields {
    static final int MIN_YEAR = 1900;
    static final int MAX_YEAR = 9999;

    private RecurrenceFields() {}

    static Timing.Recurring parse(Fields f, Instant now) {
        RecurrenceSpec.Kind kind = f.has("rrule") ? RecurrenceSpec.Kind.RRULE : RecurrenceSpec.Kind.CRON;
        String expression = f.string(kind == RecurrenceSpec.Kind.RRULE ? "rrule" : "cron", 2048);
        String tz = f.string("timezone", 64);
        CatchUp catchUp = CatchUp.LATEST;
        String c = f.string("catch_up", 16);
        if (c != null) {
            try {
                catchUp = CatchUp.parse(c);
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid("parameter_invalid", "catch_up", e.getMessage());
            }
        }
        return spec(
                kind,
                expression,
                tz,
                f.string("dtstart", 64),
                exdates(f.raw("exdates")),
                f.string("until", 64),
                f.integer("count", 1, 1_000_000),
                now,
                catchUp);
    }

    /** Builds and compiles a spec; every failure is a 400 naming the part to fix. */
    static Timing.Recurring spec(
            RecurrenceSpec.Kind kind,
            String expression,
            String tz,
            String dtstart,
            List<String> exdates,
            String until,
            Integer count,
            Instant now,
            CatchUp catchUp) {
        try {
            ZoneId zone = tz == null ? ZoneId.of("UTC") : Recurrences.zone(tz);
            if (kind == RecurrenceSpec.Kind.CRON && dtstart != null)
                throw ApiException.invalid(
                        "parameter_unexpected",
                        "dtstart",
                        "dtstart applies to rrule schedules; a cron schedule starts now");
            String rule = expression;
            LocalDateTime start = null;
            if (kind == RecurrenceSpec.Kind.RRULE && dtstart != null) start = local("dtstart", dtstart);
            else if (kind == RecurrenceSpec.Kind.RRULE) {
                // no dtstart: the next whole minute (second), and BYHOUR alone means minute 0 (RuleDefaults)
                RuleDefaults defaults = RuleDefaults.of(expression, zone, now);
                rule = defaults.rule();
                start = defaults.dtstart();
            }
            List<LocalDateTime> ex = new ArrayList<>();
            for (String e : exdates) ex.add(local("exdates", e));
            Instant untilInstant = until == null ? null : untilInstant(until, zone);
            RecurrenceSpec spec = new RecurrenceSpec(kind, rule, zone, start, ex, untilInstant, count);
            Recurrences.checkInput(spec);
            Timing.Recurring timing = new Timing.Recurring(spec, catchUp);
            Recurrences.checkCountEnd(timing.recurrence());
            return timing;
        } catch (InvalidRecurrenceException e) {
            throw ApiException.invalid(e.code(), e.param(), e.getMessage());
        }
    }

    static List<String> exdates(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node == null || node.isNull()) return out;
        if (node.isTextual()) {
            for (String part : node.asText().split(",")) if (!part.isBlank()) out.add(part.trim());
            return out;
        }
        if (!node.isArray())
            throw ApiException.invalid(
                    "parameter_invalid_type", "exdates", "exdates must be an array of local date-times");
        for (JsonNode n : node) {
            if (!n.isTextual())
                throw ApiException.invalid(
                        "parameter_invalid_type", "exdates", "exdates must be an array of local date-times");
            out.add(n.asText());
        }
        if (out.size() > 1000) throw ApiException.invalid("parameter_too_long", "exdates", "at most 1000 exdates");
        return out;
    }

    static LocalDateTime local(String param, String text) {
        LocalDateTime t;
        try {
            t = LocalDateTime.parse(text).truncatedTo(ChronoUnit.SECONDS);
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(
                    "parameter_invalid_time",
                    param,
                    param
                            + " must be a local date-time such as 2026-03-10T09:00:00 (no offset: it is read in timezone), got '"
                            + text + "'");
        }
        return inRange(param, t);
    }

    private static Instant untilInstant(String text, ZoneId zone) {
        try {
            OffsetDateTime at = OffsetDateTime.parse(text);
            inRange("until", at.toLocalDateTime());
            return at.toInstant();
        } catch (DateTimeParseException notAnInstant) {
            return local("until", text).atZone(zone).toInstant();
        }
    }

    /** Recurrences are searched within years 1900 to 9999; outside them a date is a mistake, not a rule. */
    private static LocalDateTime inRange(String param, LocalDateTime t) {
        if (t.getYear() < MIN_YEAR || t.getYear() > MAX_YEAR)
            throw ApiException.invalid(
                    "parameter_out_of_range",
                    param,
                    param + " must be between the years " + MIN_YEAR + " and " + MAX_YEAR);
        return t;
    }
}
