package dev.idem.server.internal;

import dev.idem.server.DataDirInUseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The embedded store's data directory, held by one live node: an OS file lock on {@value #FILE} in it, taken before
 * the store opens and kept until the node closes (or its process dies: the OS drops the lock with the process, so a
 * crashed node never leaves a stale lock behind). SQLite's own locking would not do: it serialises writers, it does
 * not refuse a second process, which would then run a second engine over the same queue.
 */
public final class DataDirLock implements AutoCloseable {
    /** The lock file; it holds the holder's pid, for the second node's message. */
    public static final String FILE = "idem.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates {@code dir} if needed and takes its lock.
     *
     * @throws DataDirInUseException when another live process (or this one) holds it
     */
    public static DataDirLock acquire(Path dir) {
        Path file = dir.resolve(FILE);
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldInThisProcess) {
                lock = null;
            }
            if (lock == null) {
                String holder = Files.readString(file, StandardCharsets.UTF_8).strip();
                channel.close();
                throw new DataDirInUseException(
                        dir,
                        "data directory " + dir.toAbsolutePath() + " is in use by another idem serve"
                                + (holder.isEmpty() ? "" : " (pid " + holder + ")")
                                + ": each node needs its own data directory (--data-dir, IDEM_DATA_DIR), or one "
                                + "PostgreSQL database for several nodes (--database-url)");
            }
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)));
            channel.force(false);
            return new DataDirLock(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException(
                    "cannot lock data directory " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it as well
        } finally {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) return;
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to do: the process is giving the file up
        }
    }
}
