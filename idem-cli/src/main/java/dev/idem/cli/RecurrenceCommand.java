package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.RecurrencePreview;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code idem recurrence preview}: the first occurrences of a rule, computed locally by the scheduler's own code. */
@Command(
        name = "recurrence",
        mixinStandardHelpOptions = true,
        description = "Work with recurrence rules.",
        subcommands = RecurrenceCommand.Preview.class)
public final class RecurrenceCommand {
    @Command(
            name = "preview",
            mixinStandardHelpOptions = true,
            description = "Print the first N occurrences of an RRULE or cron expression (local time and UTC).")
    static final class Preview implements Callable<Integer> {
        @Option(names = "--rrule", description = "RFC 5545 rule, e.g. FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0.")
        String rrule;

        @Option(names = "--cron", description = "Cron expression, 5 fields or 6 with seconds.")
        String cron;

        @Option(
                names = "--dtstart",
                description =
                        "Local date-time where the rule starts (default, as on create: the next whole minute in --timezone, the next second for FREQ=SECONDLY).")
        String dtstart;

        @Option(names = "--timezone", description = "IANA zone (default UTC).")
        String timezone;

        @Option(names = "--exdates", description = "Comma-separated local date-times to leave out.")
        String exdates;

        @Option(names = "--until", description = "Last instant (RFC 3339) or local date-time.")
        String until;

        @Option(names = "--count", defaultValue = "10", description = "How many (1 to 1000, default ${DEFAULT-VALUE}).")
        int count;

        @Option(names = "--json", description = "Print the API's JSON instead of a table.")
        boolean json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("rrule", rrule);
            params.put("cron", cron);
            params.put("dtstart", dtstart);
            params.put("timezone", timezone);
            params.put("exdates", exdates);
            params.put("until", until);
            params.put("count", Integer.toString(count));
            var out = spec.commandLine().getOut();
            try {
                JsonNode result = RecurrencePreview.of(params, Clock.systemUTC());
                if (json) out.println(result.toString());
                else {
                    // a header row naming the zone the left column is in (UTC when none was given)
                    Table table = Table.of("LOCAL (" + (timezone == null ? "UTC" : timezone) + ")", "UTC");
                    result.get("occurrences").forEach(o -> table.row(o.get("local"), o.get("utc")));
                    out.print(table);
                    // on stderr, so the table stays the occurrences only; the JSON carries stopped_early itself
                    if (result.path("stopped_early").asBoolean())
                        spec.commandLine()
                                .getErr()
                                .println("idem: the search stopped early after "
                                        + result.get("occurrences").size()
                                        + " occurrences; the rule is too sparse to list " + count
                                        + " in one preview, later ones may exist");
                }
                out.flush();
                return 0;
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
    }
}
