package dev.idem.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * A keyset file: read only when nobody but its owner can read or change it, written owner-only ({@code 0600}) and whole
 * (a temporary file moved into place), so a crash never leaves half a keyset.
 */
public final class MasterKeyFile {
    /** The embedded store's keyset, beside its database file when no master key is given. */
    public static final String DEFAULT_NAME = "master-keys.json";

    private static final Set<PosixFilePermission> TOO_OPEN = EnumSet.of(
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE,
            PosixFilePermission.GROUP_WRITE);

    private MasterKeyFile() {}

    /** What {@link #loadOrCreate} found. */
    public record Loaded(MasterKeys keys, boolean created) {}

    /**
     * Reads the keyset in {@code file}.
     *
     * @throws MasterKeyException when it is missing, readable by others or writable by its group, or not a keyset
     */
    public static MasterKeys load(Path file) {
        if (!Files.isRegularFile(file)) throw new MasterKeyException("master key file " + file + " does not exist");
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (view != null) {
            Set<PosixFilePermission> perms;
            try {
                perms = view.readAttributes().permissions();
            } catch (IOException e) {
                throw new MasterKeyException("cannot read the permissions of " + file + ": " + e.getMessage());
            }
            perms.retainAll(TOO_OPEN);
            if (!perms.isEmpty())
                throw new MasterKeyException("master key file " + file + " is open to others ("
                        + PosixFilePermissions.toString(permissionsOf(file)) + "): chmod 600 it");
        }
        try {
            return MasterKeys.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new MasterKeyException("cannot read master key file " + file + ": " + e.getMessage());
        }
    }

    /** The keyset in {@code file}, or a new one written there (owner-only) when there is no file yet. */
    public static Loaded loadOrCreate(Path file, SecureRandom random, Instant now) {
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) return new Loaded(load(file), false);
        MasterKeys keys = MasterKeys.generate(random, now);
        try {
            writeNew(file, keys);
        } catch (FileAlreadyExistsException e) {
            return new Loaded(load(file), false); // another process made it first
        }
        return new Loaded(keys, true);
    }

    /**
     * Writes {@code keys} to {@code file}, which must not exist.
     *
     * @throws FileAlreadyExistsException when it does
     */
    public static void writeNew(Path file, MasterKeys keys) throws FileAlreadyExistsException {
        write(file, keys, false);
    }

    /** Writes {@code keys} over {@code file} (owner-only, whole). */
    public static void replace(Path file, MasterKeys keys) {
        try {
            write(file, keys, true);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Path file, MasterKeys keys, boolean replace) throws FileAlreadyExistsException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, ".master-keys", ".tmp");
            ownerOnly(tmp);
            Files.writeString(tmp, keys.toJson(), StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
            if (replace) Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            else {
                // a hard link fails when the file exists: creation without a window where two writers both "win"
                Files.createLink(file, tmp);
                Files.delete(tmp);
            }
            tmp = null;
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (IOException | UnsupportedOperationException e) {
            throw new MasterKeyException("cannot write master key file " + file + ": " + e.getMessage());
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the message above is the one that matters
                }
            }
        }
    }

    private static void ownerOnly(Path file) throws IOException {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) != null)
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static Set<PosixFilePermission> permissionsOf(Path file) {
        try {
            return Files.getPosixFilePermissions(file);
        } catch (IOException e) {
            return Set.of();
        }
    }
}
