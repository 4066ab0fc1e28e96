package dev.idem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of every command that talks to a running server ({@code --url}, {@code --api-key}, {@code --json}),
 * mixed into each; {@link #api()} gives the server behind them.
 */
final class Connection {
    @Option(
            names = "--url",
            defaultValue = "${env:IDEM_URL:-http://127.0.0.1:8080}",
            description = "Server URL (env IDEM_URL, default ${DEFAULT-VALUE}).")
    String url;

    @Option(
            names = "--api-key",
            defaultValue = "${env:IDEM_API_KEY}",
            description = "API key sk_test_…/sk_live_… (env IDEM_API_KEY).")
    String apiKey;

    @Option(names = "--json", description = "Print the API's JSON (for scripts) instead of a table.")
    boolean json;

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    /** The server, through the Java client; bad usage (exit 2) without a key or with a URL that is not http(s). */
    Api api() {
        if (apiKey == null || apiKey.isBlank())
            throw usage("an API key is needed: --api-key sk_test_… or IDEM_API_KEY");
        return Api.connect(url, apiKey);
    }

    /** Prints an answer: the API's JSON with {@code --json}, else the table {@code view} makes of it. */
    void print(
            com.fasterxml.jackson.databind.JsonNode answer,
            java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, String> view) {
        java.io.PrintWriter out = spec.commandLine().getOut();
        out.print(json ? Api.pretty(answer) + System.lineSeparator() : view.apply(answer));
        out.flush();
    }

    CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
