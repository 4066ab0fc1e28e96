package dev.idem.core.recurrence;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/** Compact notation for expected occurrences in tests. */
final class Fixtures {

    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");

    private Fixtures() {}

    /**
     * Dates at one time of day: {@code "1997-09: 2,4; 1997-10: 2"} is 2 and 4 September and
     * 2 October 1997.
     */
    static List<LocalDateTime> days(LocalTime time, String spec) {
        List<LocalDateTime> out = new ArrayList<>();
        for (String group : spec.split(";")) {
            String[] parts = group.strip().split(":");
            String[] ym = parts[0].strip().split("-");
            for (String d : parts[1].split(",")) {
                out.add(LocalDate.of(Integer.parseInt(ym[0]), Integer.parseInt(ym[1]), Integer.parseInt(d.strip()))
                        .atTime(time));
            }
        }
        return out;
    }

    static List<LocalDateTime> at9(String spec) {
        return days(LocalTime.of(9, 0), spec);
    }

    static LocalDateTime local(String iso) {
        return LocalDateTime.parse(iso);
    }

    static List<LocalDateTime> locals(List<Occurrence> occurrences) {
        return occurrences.stream().map(Occurrence::local).toList();
    }

    static Recurrence rrule(String rule, ZoneId zone, String dtstart) {
        return Recurrences.compile(RecurrenceSpec.rrule(rule, zone, local(dtstart)));
    }
}
