package dev.idem.server;

import java.nio.file.Path;

/**
 * Another live {@code idem serve} holds the embedded store's data directory: two nodes on one SQLite file would each
 * run the engine over the same queue and the same single writer, so the second refuses to start. The message names
 * the directory, the holder's pid when it wrote one, and the flag to change.
 */
public final class DataDirInUseException extends RuntimeException {
    private final Path dataDir;

    public DataDirInUseException(Path dataDir, String message) {
        super(message);
        this.dataDir = dataDir;
    }

    /** The directory another node holds. */
    public Path dataDir() {
        return dataDir;
    }
}
