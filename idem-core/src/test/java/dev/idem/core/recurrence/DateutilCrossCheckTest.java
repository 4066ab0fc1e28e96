package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Random rules over every BY* part, with the answers python-dateutil 2.9.0 gave (generated once
 * and checked in beside this class). Cases where dateutil itself is wrong were left out: it
 * starts a WEEKLY rule's first BYSETPOS set at DTSTART instead of the week start, and with
 * BYWEEKNO and INTERVAL it takes "last year" to be the previous iterated year. The zoned set
 * compares instants around the 2025 transitions of three zones. The generators are the two
 * {@code dateutil-*.py} scripts beside the data.
 */
class DateutilCrossCheckTest {

    private static final Path DIR = Path.of("src/test/java/dev/idem/core/recurrence");

    @Test
    void floatingRulesMatchDateutil() throws IOException {
        List<String> mismatches = new ArrayList<>();
        List<String[]> cases = cases("dateutil-floating.txt");
        for (String[] c : cases) {
            List<String> expected = Arrays.asList(c[2].split(","));
            List<String> got = Recurrences.compile(
                            RecurrenceSpec.rrule(c[0], ZoneOffset.UTC, LocalDateTime.parse(c[1])))
                    .preview(null, expected.size())
                    .stream()
                    .map(o -> o.local().toString().length() == 16
                            ? o.local() + ":00"
                            : o.local().toString())
                    .toList();
            if (!got.equals(expected)) {
                mismatches.add(c[0] + " from " + c[1] + ": dateutil " + expected + ", ours " + got);
            }
        }
        assertThat(cases).hasSizeGreaterThan(250);
        assertThat(mismatches).isEmpty();
    }

    @Test
    void zonedRulesAroundTransitionsMatchDateutilInstants() throws IOException {
        List<String> mismatches = new ArrayList<>();
        List<String[]> cases = cases("dateutil-zoned.txt");
        for (String[] c : cases) {
            List<String> expected = Arrays.asList(c[3].split(","));
            List<String> got = Recurrences.compile(
                            RecurrenceSpec.rrule(c[0], ZoneId.of(c[2]), LocalDateTime.parse(c[1])))
                    .preview(null, expected.size())
                    .stream()
                    .map(o -> o.utc().toString())
                    .toList();
            if (!got.equals(expected)) {
                mismatches.add(c[0] + " in " + c[2] + " from " + c[1] + ": dateutil " + expected + ", ours " + got);
            }
        }
        assertThat(cases).hasSizeGreaterThan(100);
        assertThat(mismatches).isEmpty();
    }

    private static List<String[]> cases(String file) throws IOException {
        return Files.readAllLines(DIR.resolve(file)).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> l.split("\\|"))
                .toList();
    }
}
