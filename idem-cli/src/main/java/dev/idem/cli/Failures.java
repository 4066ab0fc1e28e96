package dev.idem.cli;

import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreNotFoundException;
import dev.idem.server.StartupException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import picocli.CommandLine;

/**
 * The one place where a failed command becomes an exit code and one line on stderr, {@code idem: <what failed and
 * what to do>}, never a stack trace ({@code IDEM_DEBUG=1} adds it, for bug reports). Exit codes: {@value #OK} ok,
 * {@value #REFUSED} the API (or store) refused or the command failed, {@value #USAGE} bad usage, {@value #UNREACHABLE}
 * server unreachable. Installed on the whole command tree by {@link IdemCommand#commandLine()}, so a command only
 * throws ({@link CliException}, picocli's {@link CommandLine.ParameterException}, or whatever its libraries throw)
 * and every command gets the same manners, including those that will talk to the server through another client:
 * any failure whose causes include a refused or timed-out connection or an unknown host is "unreachable".
 */
final class Failures implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {
    static final int OK = 0;
    static final int REFUSED = 1;
    static final int USAGE = 2;
    static final int UNREACHABLE = 3;

    /** Bad usage found while parsing: the problem, and where to read about the command. */
    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("idem: " + oneLine(e.getMessage()));
        if (e instanceof CommandLine.UnmatchedArgumentException u) {
            var suggestions = u.getSuggestions();
            if (!suggestions.isEmpty()) err.println("  did you mean: " + String.join(", ", suggestions) + "?");
        }
        err.println("  see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
        err.flush();
        return USAGE;
    }

    /** A command that threw while running. */
    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        if (e instanceof CommandLine.ParameterException p)
            return handleParseException(p, parsed.originalArgs().toArray(String[]::new));
        PrintWriter err = cmd.getErr();
        err.println("idem: " + message(e));
        if (System.getenv("IDEM_DEBUG") != null) e.printStackTrace(err);
        err.flush();
        return exitCode(e);
    }

    static int exitCode(Throwable e) {
        if (e instanceof CliException c) return c.exitCode();
        if (e instanceof StoreNotFoundException || e instanceof dev.idem.store.MasterKeyException) return USAGE;
        if (e instanceof StoreException || e instanceof StartupException) return REFUSED;
        if (unreachable(e) != null) return UNREACHABLE;
        return REFUSED;
    }

    static String message(Throwable e) {
        if (e instanceof CliException
                || e instanceof StoreException
                || e instanceof StartupException
                || e instanceof dev.idem.store.MasterKeyException) return oneLine(e.getMessage());
        String why = unreachable(e);
        if (why != null) return "cannot reach the server: " + why + " (is it running? check --url / IDEM_URL)";
        return "unexpected error: " + oneLine(e.toString()) + " (IDEM_DEBUG=1 prints the stack trace for a bug report)";
    }

    /**
     * Why {@code e} means the other side could not be reached, searching its causes: a refused or timed-out
     * connection, no answer in time, a host that does not resolve; null when it means something else.
     */
    static String unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) return "the connection timed out";
            if (t instanceof HttpTimeoutException) return "no answer in time";
            if (t instanceof ConnectException) return t.getMessage() == null ? "connection refused" : t.getMessage();
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) return "unknown host";
        }
        return null;
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }
}
