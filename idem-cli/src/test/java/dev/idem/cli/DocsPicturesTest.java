package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.RecurrencePreview;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The daylight-saving pictures in docs/scheduling.md are what {@code idem recurrence preview} computes: every row of
 * every picture (local time, UTC instant, and the {@code #} on the UTC axis) is recomputed here, so a change of the
 * recurrence rules cannot leave the docs drawing something the scheduler no longer does.
 */
class DocsPicturesTest {
    private static final Path PAGE = Path.of("..", "docs", "scheduling.md");
    /** A picture's first line, as docs/pictures/dst-week.sh prints it: zone, rule, dtstart. */
    private static final Pattern HEADER = Pattern.compile("^([A-Za-z_]+/[A-Za-z_]+), (FREQ=\\S+), dtstart (\\S+)$");

    private static final Pattern AXIS = Pattern.compile("UTC (\\d{2}):00 ");
    private static final Pattern ROW =
            Pattern.compile("^\\w{3} (\\d{4}-\\d{2}-\\d{2}) (\\d{2}:\\d{2}) +(\\S+Z)(?: +(\\S+))?$");

    record Picture(String zone, String rule, String dtstart, Integer axisFrom, List<String[]> rows) {}

    @Test
    void every_dst_picture_row_is_what_recurrence_preview_prints() throws IOException {
        List<Picture> pictures = pictures(Files.readAllLines(PAGE, StandardCharsets.UTF_8));
        assertThat(pictures).as("the DST pictures in " + PAGE).hasSizeGreaterThanOrEqualTo(4);
        for (Picture p : pictures) {
            List<String> printed =
                    preview(p.rule(), p.dtstart(), p.zone(), p.rows().size());
            for (int i = 0; i < p.rows().size(); i++) {
                String[] row = p.rows().get(i);
                assertThat(row[0] + "T" + row[1] + ":00 " + row[2])
                        .as(p.rule() + " from " + p.dtstart() + ", row " + (i + 1))
                        .isEqualTo(printed.get(i + 1).replaceAll(" +", " "));
                if (p.axisFrom() != null) {
                    int minutes = Integer.parseInt(row[2].substring(11, 13)) * 60
                            + Integer.parseInt(row[2].substring(14, 16));
                    assertThat(row[3].indexOf('#'))
                            .as("the # of " + row[2] + " on an axis from " + p.axisFrom() + ":00 UTC")
                            .isEqualTo((minutes - p.axisFrom() * 60) / 10);
                } else if (i > 0) {
                    long hours = java.time.Duration.between(
                                    Instant.parse(p.rows().get(i - 1)[2]), Instant.parse(row[2]))
                            .toHours();
                    assertThat(row[3])
                            .as("hours between the UTC instants of rows " + i + " and " + (i + 1))
                            .isEqualTo(Long.toString(hours));
                }
            }
        }
    }

    @Test
    void the_cron_sentence_about_the_same_nights_holds() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        assertThat(page)
                .contains(
                        "`30 2 * * *` in Europe/Paris previews 2027-03-28T03:30 local = 01:30 UTC, and 2027-10-31T02:30 = 00:30 UTC");
        // cron starts at the creation time, so the preview is run as if created shortly before each night
        assertThat(cron("2027-03-27T12:00:00Z")).contains("2027-03-28T03:30:00 2027-03-28T01:30:00.000Z");
        assertThat(cron("2027-10-30T12:00:00Z")).contains("2027-10-31T02:30:00 2027-10-31T00:30:00.000Z");
    }

    private static List<String> cron(String now) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("cron", "30 2 * * *");
        params.put("timezone", "Europe/Paris");
        params.put("count", "1");
        JsonNode o = RecurrencePreview.of(params, Clock.fixed(Instant.parse(now), ZoneOffset.UTC))
                .get("occurrences")
                .get(0);
        return List.of(o.get("local").asText() + " " + o.get("utc").asText());
    }

    private static List<String> preview(String rule, String dtstart, String zone, int count) {
        StringWriter out = new StringWriter();
        int code = IdemCommand.commandLine()
                .setOut(new PrintWriter(out))
                .execute(
                        "recurrence",
                        "preview",
                        "--rrule",
                        rule,
                        "--dtstart",
                        dtstart,
                        "--timezone",
                        zone,
                        "--count",
                        Integer.toString(count));
        assertThat(code).as("idem recurrence preview --rrule " + rule).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).matches("LOCAL \\(" + zone + "\\) +UTC");
        return lines;
    }

    private static List<Picture> pictures(List<String> lines) {
        List<Picture> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher h = HEADER.matcher(lines.get(i));
            if (!h.matches()) continue;
            Matcher axis = AXIS.matcher(lines.get(i + 1));
            Integer from = axis.find() ? Integer.valueOf(axis.group(1)) : null;
            List<String[]> rows = new ArrayList<>();
            for (int j = i + 2; j < lines.size(); j++) {
                Matcher r = ROW.matcher(lines.get(j));
                if (!r.matches()) break;
                rows.add(new String[] {r.group(1), r.group(2), r.group(3), r.group(4)});
            }
            assertThat(rows).as("rows under " + lines.get(i)).isNotEmpty();
            found.add(new Picture(h.group(1), h.group(2), h.group(3), from, rows));
        }
        return found;
    }
}
