package dev.idem.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code idem settings get|set}: the project's settings on a running server (where alerts go, and which). */
@Command(
        name = "settings",
        mixinStandardHelpOptions = true,
        description = "Read and change the project's settings (alerts) on a running Idem server.",
        subcommands = {SettingsCommand.Set.class})
public final class SettingsCommand {
    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description = "Show the settings of the API key's project and mode.")
    int get(@Mixin Connection conn) {
        conn.print(conn.api().get("/v1/settings"), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "set",
            mixinStandardHelpOptions = true,
            description = "Change settings: only the options given change.")
    static final class Set implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(
                names = "--alert-endpoint",
                description = "Where Idem sends alert webhooks (delivery.dead, schedule.auto_paused).")
        String alertEndpoint;

        @Option(names = "--no-alert-endpoint", description = "Send no alerts any more.")
        boolean noAlertEndpoint;

        @Option(
                names = "--alert-events",
                split = ",",
                description = "The events to send, comma-separated: delivery.dead, schedule.auto_paused.")
        java.util.List<String> alertEvents;

        @Override
        public Integer call() {
            if (alertEndpoint != null && noAlertEndpoint)
                throw conn.usage("--alert-endpoint and --no-alert-endpoint contradict each other");
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            if (alertEndpoint != null) body.put("alert_endpoint", alertEndpoint);
            if (noAlertEndpoint) body.putNull("alert_endpoint");
            if (alertEvents != null) {
                ArrayNode events = body.putArray("alert_events");
                alertEvents.forEach(events::add);
            }
            if (body.isEmpty())
                throw conn.usage(
                        "give at least one option to change: --alert-endpoint, --no-alert-endpoint or --alert-events");
            conn.print(conn.api().send("PATCH", "/v1/settings", body, null), Views::object);
            return Failures.OK;
        }
    }
}
