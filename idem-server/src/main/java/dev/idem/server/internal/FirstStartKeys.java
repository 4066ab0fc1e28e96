package dev.idem.server.internal;

import dev.idem.server.StartupException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;

/**
 * Where the API keys created at first start are shown, once. On a terminal they are printed. Otherwise the node's
 * output is most likely collected into logs (a service manager, a container runtime, CI), where a live key must not
 * land: the keys go to {@value #FILE} in the data directory, readable by the node's user only (0600), and the output
 * says only where they are.
 */
public interface FirstStartKeys {
    /** The file the keys go to when the output is not a terminal. */
    String FILE = "first-start-keys.txt";

    /**
     * Shows the keys of a project created just now.
     *
     * @param createdAt when the project was created
     * @param lines one line per key, {@code "test key: sk_test_…"}
     */
    void show(String project, Instant createdAt, List<String> lines);

    /** Prints the keys to {@code out} (a terminal, or a test's stream). */
    static FirstStartKeys printTo(PrintStream out) {
        return (project, createdAt, lines) -> {
            out.println("Created project '" + project + "'. These API keys are shown once; store them now:");
            lines.forEach(line -> out.println("  " + line));
            out.flush();
        };
    }

    /**
     * Writes the keys to {@code dataDir}/{@value #FILE}, owner-only, and prints its path to {@code out}.
     *
     * @throws StartupException when the file cannot be written (the message says where, why, and how to get a key)
     */
    static FirstStartKeys toFile(Path dataDir, PrintStream out) {
        return (project, createdAt, lines) -> {
            Path file = dataDir.toAbsolutePath().resolve(FILE);
            StringBuilder text = new StringBuilder()
                    .append("# The API keys of Idem project '")
                    .append(project)
                    .append("', created at first start on ")
                    .append(createdAt)
                    .append(
                            ".\n# Shown once: store them (a secrets manager, a password store), then delete this file.\n");
            lines.forEach(line -> text.append(line).append('\n'));
            writeOwnerOnly(file, text.toString());
            out.println("Created project '" + project + "'. Its API keys are in " + file
                    + " (readable by this user only): store them, then delete the file.");
            out.flush();
        };
    }

    /** On a terminal the keys are printed, otherwise written to the data directory's file. */
    static FirstStartKeys forOutput(boolean terminal, Path dataDir, PrintStream out) {
        return terminal ? printTo(out) : toFile(dataDir, out);
    }

    /** A new file created 0600 (never readable by others, not even for a moment), moved over any older one. */
    private static void writeOwnerOnly(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Path temp;
            try {
                temp = Files.createTempFile(
                        file.getParent(),
                        ".first-start-keys",
                        ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException notPosix) {
                temp = Files.createTempFile(file.getParent(), ".first-start-keys", ".tmp");
                var f = temp.toFile();
                // not POSIX (Windows): the closest the JDK offers, readable and writable by the owner only
                if (!(f.setReadable(false, false) && f.setReadable(true, true) && f.setWritable(true, true)))
                    throw new IOException("cannot make " + temp + " readable by its owner only");
            }
            Files.writeString(temp, text, StandardCharsets.UTF_8);
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new StartupException(
                    "cannot write the first-start API keys to " + file + ": " + e.getMessage()
                            + "; project 'default' was created without a readable key: make the data directory "
                            + "writable (--data-dir, IDEM_DATA_DIR), then create one with `idem keys create`",
                    e);
        }
    }
}
