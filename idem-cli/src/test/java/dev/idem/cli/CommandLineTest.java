package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command tree's manners, in this JVM; the fat jar's are in {@link CommandLineIT}. */
class CommandLineTest {

    @Test
    void everyCommandsSummaryInTheHelpListingIsAWholeSentence() {
        List<String> cut = new ArrayList<>();
        collect(IdemCommand.commandLine(), cut);
        assertThat(cut)
                .as("commands whose one-line summary (the first line of the description) ends mid-sentence")
                .isEmpty();
    }

    private static void collect(CommandLine cmd, List<String> cut) {
        for (CommandLine sub : cmd.getSubcommands().values()) {
            var spec = sub.getCommandSpec();
            String[] lines = spec.usageMessage().header().length > 0
                    ? spec.usageMessage().header()
                    : spec.usageMessage().description();
            String summary = lines.length == 0 ? "" : lines[0].strip();
            if (!summary.endsWith(".")) cut.add(spec.qualifiedName() + ": " + summary);
            collect(sub, cut);
        }
    }

    @Test
    void anUnexpectedFailureIsOneLineThatSaysHowToGetTheTrace() {
        StringWriter err = new StringWriter();
        var failures = new Failures();
        CommandLine cmd =
                new CommandLine(new Boom()).setErr(new PrintWriter(err)).setExecutionExceptionHandler(failures);
        assertThat(cmd.execute()).isEqualTo(1);
        assertThat(err.toString().strip())
                .isEqualTo(
                        "idem: unexpected error: java.lang.IllegalStateException: broken on two lines (IDEM_DEBUG=1 prints the stack trace for a bug report)");
    }

    @Test
    void aFailureCausedByARefusedConnectionAnywhereIsUnreachable() {
        var e = new RuntimeException(
                "client failed", new java.io.UncheckedIOException(new java.net.ConnectException("Connection refused")));
        assertThat(Failures.exitCode(e)).isEqualTo(3);
        assertThat(Failures.message(e)).startsWith("cannot reach the server: Connection refused");
        assertThat(Failures.exitCode(new java.net.http.HttpConnectTimeoutException("timed out")))
                .isEqualTo(3);
    }

    @CommandLine.Command(name = "boom")
    static final class Boom implements java.util.concurrent.Callable<Integer> {
        @Override
        public Integer call() {
            throw new IllegalStateException("broken\non two lines");
        }
    }
}
