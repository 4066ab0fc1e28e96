package dev.idem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code idem} command line. Exit codes and error lines: {@link Failures}. */
@Command(
        name = "idem",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Idem: a self-hosted webhook scheduler with idempotency on both sides of the wire.",
        subcommands = {
            ServeCommand.class,
            SchedulesCommand.class,
            DeliveriesCommand.class,
            SourcesCommand.class,
            ApplicationsCommand.class,
            EndpointsCommand.class,
            EventTypesCommand.class,
            MessagesCommand.class,
            SettingsCommand.class,
            RecurrenceCommand.class,
            KeysCommand.class,
            ListenCommand.class,
            CommandLine.HelpCommand.class
        })
public final class IdemCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (as {@code ./idem} runs it), for tests too. */
    public static CommandLine commandLine() {
        Failures failures = new Failures();
        return new CommandLine(new IdemCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(failures)
                .setParameterExceptionHandler(failures);
    }

    /** {@code idem} alone is not a command: the usage goes to stderr, and the exit code says bad usage. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return Failures.USAGE;
    }
}
