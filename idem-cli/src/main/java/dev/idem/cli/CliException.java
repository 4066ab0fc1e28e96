package dev.idem.cli;

/**
 * A command failed in a way the user can act on: the message is the one line printed (what failed and what to do),
 * the exit code one of {@link Failures}'. Thrown from any command; {@link Failures} prints it.
 */
final class CliException extends RuntimeException {
    private final int exitCode;

    private CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** The API (or the store) answered and refused: exit 1. */
    static CliException refused(String message) {
        return new CliException(Failures.REFUSED, message, null);
    }

    /** The command line names something that is not there or not valid: exit 2. */
    static CliException usage(String message, Throwable cause) {
        return new CliException(Failures.USAGE, message, cause);
    }

    /** The server could not be reached, or did not answer: exit 3. */
    static CliException unreachable(String message, Throwable cause) {
        return new CliException(Failures.UNREACHABLE, message, cause);
    }

    int exitCode() {
        return exitCode;
    }
}
