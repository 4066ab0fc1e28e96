package dev.idem.core.recurrence;

import static dev.idem.core.recurrence.Fixtures.NEW_YORK;
import static dev.idem.core.recurrence.Fixtures.at9;
import static dev.idem.core.recurrence.Fixtures.local;
import static dev.idem.core.recurrence.Fixtures.locals;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every example of RFC 5545 section 3.8.5.3, DTSTART in America/New_York as the RFC gives it.
 * Finite rules must produce exactly the RFC's set; "forever" rules must start with the RFC's
 * listed occurrences.
 */
class RfcExamplesTest {

    record Example(
            String title,
            String dtstart,
            String rule,
            boolean finite,
            List<LocalDateTime> expected,
            List<LocalDateTime> exdates) {
        @Override
        public String toString() {
            return title;
        }
    }

    static Stream<Arguments> examples() {
        List<Example> e = new ArrayList<>();
        e.add(finite(
                "daily for 10 occurrences",
                "1997-09-02T09:00",
                "FREQ=DAILY;COUNT=10",
                at9("1997-09: 2,3,4,5,6,7,8,9,10,11")));
        e.add(finite(
                "daily until December 24, 1997",
                "1997-09-02T09:00",
                "RRULE:FREQ=DAILY;UNTIL=19971224T000000Z",
                range(LocalDate.of(1997, 9, 2), LocalDate.of(1997, 12, 23), 1)));
        e.add(forever(
                "every other day",
                "1997-09-02T09:00",
                "FREQ=DAILY;INTERVAL=2",
                range(LocalDate.of(1997, 9, 2), LocalDate.of(1997, 12, 31), 2)));
        e.add(finite(
                "every 10 days, 5 occurrences",
                "1997-09-02T09:00",
                "FREQ=DAILY;INTERVAL=10;COUNT=5",
                at9("1997-09: 2,12,22; 1997-10: 2,12")));
        List<LocalDateTime> januaries = new ArrayList<>();
        for (int y = 1998; y <= 2000; y++) {
            januaries.addAll(range(LocalDate.of(y, 1, 1), LocalDate.of(y, 1, 31), 1));
        }
        e.add(finite(
                "every day in January for 3 years (yearly form)",
                "1998-01-01T09:00",
                "FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
                januaries));
        e.add(finite(
                "every day in January for 3 years (daily form)",
                "1998-01-01T09:00",
                "FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1",
                januaries));
        e.add(finite(
                "weekly for 10 occurrences",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;COUNT=10",
                at9("1997-09: 2,9,16,23,30; 1997-10: 7,14,21,28; 1997-11: 4")));
        e.add(finite(
                "weekly until December 24, 1997",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;UNTIL=19971224T000000Z",
                range(LocalDate.of(1997, 9, 2), LocalDate.of(1997, 12, 23), 7)));
        e.add(forever(
                "every other week",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;INTERVAL=2;WKST=SU",
                at9("1997-09: 2,16,30; 1997-10: 14,28; 1997-11: 11,25; 1997-12: 9,23; 1998-01: 6,20; 1998-02: 3,17")));
        List<LocalDateTime> tuTh = at9("1997-09: 2,4,9,11,16,18,23,25,30; 1997-10: 2");
        e.add(finite(
                "weekly on Tuesday and Thursday for five weeks (until)",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH",
                tuTh));
        e.add(finite(
                "weekly on Tuesday and Thursday for five weeks (count)",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH",
                tuTh));
        e.add(
                finite(
                        "every other week on Monday, Wednesday and Friday until December 24, 1997",
                        "1997-09-01T09:00",
                        "FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
                        at9(
                                "1997-09: 1,3,5,15,17,19,29; 1997-10: 1,3,13,15,17,27,29,31; 1997-11: 10,12,14,24,26,28; 1997-12: 8,10,12,22")));
        e.add(finite(
                "every other week on Tuesday and Thursday, 8 occurrences",
                "1997-09-02T09:00",
                "FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH",
                at9("1997-09: 2,4,16,18,30; 1997-10: 2,14,16")));
        e.add(
                finite(
                        "monthly on the first Friday for 10 occurrences",
                        "1997-09-05T09:00",
                        "FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
                        at9(
                                "1997-09: 5; 1997-10: 3; 1997-11: 7; 1997-12: 5; 1998-01: 2; 1998-02: 6; 1998-03: 6; 1998-04: 3; 1998-05: 1; 1998-06: 5")));
        e.add(finite(
                "monthly on the first Friday until December 24, 1997",
                "1997-09-05T09:00",
                "FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR",
                at9("1997-09: 5; 1997-10: 3; 1997-11: 7; 1997-12: 5")));
        e.add(finite(
                "every other month on the first and last Sunday, 10 occurrences",
                "1997-09-07T09:00",
                "FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU",
                at9("1997-09: 7,28; 1997-11: 2,30; 1998-01: 4,25; 1998-03: 1,29; 1998-05: 3,31")));
        e.add(finite(
                "monthly on the second-to-last Monday for 6 months",
                "1997-09-22T09:00",
                "FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
                at9("1997-09: 22; 1997-10: 20; 1997-11: 17; 1997-12: 22; 1998-01: 19; 1998-02: 16")));
        e.add(forever(
                "monthly on the third-to-the-last day",
                "1997-09-28T09:00",
                "FREQ=MONTHLY;BYMONTHDAY=-3",
                at9("1997-09: 28; 1997-10: 29; 1997-11: 28; 1997-12: 29; 1998-01: 29; 1998-02: 26")));
        e.add(finite(
                "monthly on the 2nd and 15th, 10 occurrences",
                "1997-09-02T09:00",
                "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15",
                at9("1997-09: 2,15; 1997-10: 2,15; 1997-11: 2,15; 1997-12: 2,15; 1998-01: 2,15")));
        e.add(finite(
                "monthly on the first and last day, 10 occurrences",
                "1997-09-30T09:00",
                "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1",
                at9("1997-09: 30; 1997-10: 1,31; 1997-11: 1,30; 1997-12: 1,31; 1998-01: 1,31; 1998-02: 1")));
        e.add(finite(
                "every 18 months on the 10th to 15th, 10 occurrences",
                "1997-09-10T09:00",
                "FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
                at9("1997-09: 10,11,12,13,14,15; 1999-03: 10,11,12,13")));
        e.add(forever(
                "every Tuesday, every other month",
                "1997-09-02T09:00",
                "FREQ=MONTHLY;INTERVAL=2;BYDAY=TU",
                at9("1997-09: 2,9,16,23,30; 1997-11: 4,11,18,25; 1998-01: 6,13,20,27; 1998-03: 3,10,17,24,31")));
        e.add(
                finite(
                        "yearly in June and July, 10 occurrences",
                        "1997-06-10T09:00",
                        "FREQ=YEARLY;COUNT=10;BYMONTH=6,7",
                        at9(
                                "1997-06: 10; 1997-07: 10; 1998-06: 10; 1998-07: 10; 1999-06: 10; 1999-07: 10; 2000-06: 10; 2000-07: 10; 2001-06: 10; 2001-07: 10")));
        e.add(
                finite(
                        "every other year in January, February and March, 10 occurrences",
                        "1997-03-10T09:00",
                        "FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3",
                        at9(
                                "1997-03: 10; 1999-01: 10; 1999-02: 10; 1999-03: 10; 2001-01: 10; 2001-02: 10; 2001-03: 10; 2003-01: 10; 2003-02: 10; 2003-03: 10")));
        e.add(
                finite(
                        "every third year on the 1st, 100th and 200th day, 10 occurrences",
                        "1997-01-01T09:00",
                        "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
                        at9(
                                "1997-01: 1; 1997-04: 10; 1997-07: 19; 2000-01: 1; 2000-04: 9; 2000-07: 18; 2003-01: 1; 2003-04: 10; 2003-07: 19; 2006-01: 1")));
        e.add(forever(
                "every 20th Monday of the year",
                "1997-05-19T09:00",
                "FREQ=YEARLY;BYDAY=20MO",
                at9("1997-05: 19; 1998-05: 18; 1999-05: 17")));
        e.add(forever(
                "Monday of week number 20",
                "1997-05-12T09:00",
                "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
                at9("1997-05: 12; 1998-05: 11; 1999-05: 17")));
        e.add(forever(
                "every Thursday in March",
                "1997-03-13T09:00",
                "FREQ=YEARLY;BYMONTH=3;BYDAY=TH",
                at9("1997-03: 13,20,27; 1998-03: 5,12,19,26; 1999-03: 4,11,18,25")));
        e.add(forever(
                "every Thursday in June, July and August",
                "1997-06-05T09:00",
                "FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8",
                at9("1997-06: 5,12,19,26; 1997-07: 3,10,17,24,31; 1997-08: 7,14,21,28;"
                        + "1998-06: 4,11,18,25; 1998-07: 2,9,16,23,30; 1998-08: 6,13,20,27;"
                        + "1999-06: 3,10,17,24; 1999-07: 1,8,15,22,29; 1999-08: 5,12,19,26")));
        e.add(new Example(
                "every Friday the 13th (EXDATE of DTSTART)",
                "1997-09-02T09:00",
                "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",
                false,
                at9("1998-02: 13; 1998-03: 13; 1998-11: 13; 1999-08: 13; 2000-10: 13"),
                List.of(local("1997-09-02T09:00"))));
        e.add(
                forever(
                        "the first Saturday after the first Sunday",
                        "1997-09-13T09:00",
                        "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
                        at9(
                                "1997-09: 13; 1997-10: 11; 1997-11: 8; 1997-12: 13; 1998-01: 10; 1998-02: 7; 1998-03: 7; 1998-04: 11; 1998-05: 9; 1998-06: 13")));
        e.add(forever(
                "US presidential election day",
                "1996-11-05T09:00",
                "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
                at9("1996-11: 5; 2000-11: 7; 2004-11: 2")));
        e.add(finite(
                "third instance of Tuesday, Wednesday or Thursday, 3 months",
                "1997-09-04T09:00",
                "FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
                at9("1997-09: 4; 1997-10: 7; 1997-11: 6")));
        e.add(forever(
                "second-to-last weekday of the month",
                "1997-09-29T09:00",
                "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
                at9("1997-09: 29; 1997-10: 30; 1997-11: 27; 1997-12: 30; 1998-01: 29; 1998-02: 26; 1998-03: 30")));
        // RFC erratum: the RFC lists 15:00 too, but 15:00 EDT is 19:00Z, after a UTC UNTIL of 17:00Z;
        // docs/scheduling.md: Idem compares a UTC UNTIL with each instant, so 09:00 and 12:00 EDT (13:00Z, 16:00Z).
        e.add(finite(
                "every 3 hours from 09:00 (UTC UNTIL compared with instants)",
                "1997-09-02T09:00",
                "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z",
                times("1997-09-02", "09:00", "12:00")));
        e.add(finite(
                "every 3 hours from 09:00 to 17:00 local",
                "1997-09-02T09:00",
                "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000",
                times("1997-09-02", "09:00", "12:00", "15:00")));
        e.add(finite(
                "every 15 minutes for 6 occurrences",
                "1997-09-02T09:00",
                "FREQ=MINUTELY;INTERVAL=15;COUNT=6",
                times("1997-09-02", "09:00", "09:15", "09:30", "09:45", "10:00", "10:15")));
        e.add(finite(
                "every hour and a half for 4 occurrences",
                "1997-09-02T09:00",
                "FREQ=MINUTELY;INTERVAL=90;COUNT=4",
                times("1997-09-02", "09:00", "10:30", "12:00", "13:30")));
        e.add(forever(
                "every 20 minutes from 9:00 to 16:40 (daily form)",
                "1997-09-02T09:00",
                "FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40",
                everyTwentyMinutes()));
        e.add(forever(
                "every 20 minutes from 9:00 to 16:40 (minutely form)",
                "1997-09-02T09:00",
                "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
                everyTwentyMinutes()));
        e.add(finite(
                "WKST=MO changes the result",
                "1997-08-05T09:00",
                "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
                at9("1997-08: 5,10,19,24")));
        e.add(finite(
                "WKST=SU changes the result",
                "1997-08-05T09:00",
                "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU",
                at9("1997-08: 5,17,19,31")));
        e.add(finite(
                "invalid dates are skipped, not counted",
                "2007-01-15T09:00",
                "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5",
                at9("2007-01: 15,30; 2007-02: 15; 2007-03: 15,30")));
        return e.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void producesTheRfcOccurrences(Example example) {
        Recurrence r = Recurrences.compile(new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                example.rule(),
                NEW_YORK,
                local(example.dtstart()),
                example.exdates(),
                null,
                null));
        List<Occurrence> got = r.preview(null, example.expected().size() + (example.finite() ? 5 : 0));
        assertThat(locals(got)).containsExactlyElementsOf(example.expected());
        for (Occurrence o : got) {
            assertThat(o.utc()).isEqualTo(o.local().atZone(NEW_YORK).toInstant());
        }
    }

    private static Example finite(String title, String dtstart, String rule, List<LocalDateTime> expected) {
        return new Example(title, dtstart, rule, true, expected, List.of());
    }

    private static Example forever(String title, String dtstart, String rule, List<LocalDateTime> expected) {
        return new Example(title, dtstart, rule, false, expected, List.of());
    }

    private static List<LocalDateTime> range(LocalDate first, LocalDate last, int stepDays) {
        List<LocalDateTime> out = new ArrayList<>();
        for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(stepDays)) {
            out.add(d.atTime(9, 0));
        }
        return out;
    }

    private static List<LocalDateTime> times(String date, String... times) {
        return Stream.of(times).map(t -> local(date + "T" + t)).toList();
    }

    private static List<LocalDateTime> everyTwentyMinutes() {
        List<LocalDateTime> out = new ArrayList<>();
        for (LocalDate d = LocalDate.of(1997, 9, 2); d.isBefore(LocalDate.of(1997, 9, 4)); d = d.plusDays(1)) {
            for (int h = 9; h <= 16; h++) {
                for (int m = 0; m < 60; m += 20) {
                    out.add(d.atTime(LocalTime.of(h, m)));
                }
            }
        }
        return out;
    }
}
