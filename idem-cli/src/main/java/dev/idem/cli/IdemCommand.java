package dev.idem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code idem} command line. */
@Command(name = "idem", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Idem: a self-hosted webhook scheduler with idempotency on both sides of the wire.",
        subcommands = {ServeCommand.class, SchedulesCommand.class, RecurrenceCommand.class, KeysCommand.class, ListenCommand.class, CommandLine.HelpCommand.class})
public final class IdemCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, for tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new IdemCommand()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
