package dev.idem.cli;

import dev.idem.store.MasterKeyException;
import dev.idem.store.MasterKeyFile;
import dev.idem.store.MasterKeys;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import picocli.CommandLine.Option;

/**
 * Where the master key that seals stored secrets comes from: {@code --master-key-file} / {@code IDEM_MASTER_KEY_FILE}
 * (a keyset), or {@code IDEM_MASTER_KEY} (one key, base64; an environment variable only, so it is never in a process
 * list). With neither, the embedded store keeps a keyset beside its database, made on first start; PostgreSQL refuses.
 */
final class MasterKeyOptions {
    static final String KEY_ENV = "IDEM_MASTER_KEY";

    @Option(
            names = "--master-key-file",
            defaultValue = "${env:IDEM_MASTER_KEY_FILE}",
            description = "Keyset file of the master keys that seal stored secrets (env IDEM_MASTER_KEY_FILE); or one "
                    + "key, base64, in env IDEM_MASTER_KEY. Default with SQLite: " + MasterKeyFile.DEFAULT_NAME
                    + " in the data directory, made on first start. See docs/security.md.")
    Path file;

    /**
     * The keys a node opens the store with: the given ones, or the embedded store's keyset, made now (saying so in one
     * line) when there is none yet.
     *
     * @param out where the one line saying a keyset was made goes
     * @throws MasterKeyException (exit 2, one line) for a bad key or keyset, or none where one is needed
     */
    MasterKeys resolve(Path dataDir, String databaseUrl, PrintStream out) {
        MasterKeys given = given();
        if (given != null) return given;
        Path embedded = embeddedKeyset(dataDir, databaseUrl);
        if (embedded == null)
            throw new MasterKeyException("no master key: a PostgreSQL store needs one to seal its secrets; make one "
                    + "with `./idem keys master generate --out <file>` and start with --master-key-file <file> "
                    + "(IDEM_MASTER_KEY_FILE), the same on every node");
        MasterKeyFile.Loaded loaded = MasterKeyFile.loadOrCreate(embedded, new SecureRandom(), Instant.now());
        if (loaded.created()) {
            out.println("idem: generated the master key " + loaded.keys().primaryId() + " into " + embedded
                    + " (owner-only); back it up apart from the database, which cannot be read without it");
            out.flush();
        }
        return loaded.keys();
    }

    /**
     * The keys given by flag or environment, or null for none (an embedded store then uses the keyset beside its
     * database).
     */
    MasterKeys given() {
        String env = ServeCommand.blankToNull(System.getenv(KEY_ENV));
        if (file != null && env != null)
            throw new MasterKeyException("both --master-key-file (IDEM_MASTER_KEY_FILE) and " + KEY_ENV
                    + " are set: give the master key one way");
        if (file != null) return MasterKeyFile.load(file);
        return env == null ? null : MasterKeys.ofBase64Key(env);
    }

    /** The embedded store's keyset file, or null for PostgreSQL. */
    static Path embeddedKeyset(Path dataDir, String databaseUrl) {
        if (databaseUrl == null)
            return dataDir.resolve(MasterKeyFile.DEFAULT_NAME).toAbsolutePath();
        if (!databaseUrl.toLowerCase(java.util.Locale.ROOT).startsWith("jdbc:sqlite:")) return null;
        String path = databaseUrl.substring("jdbc:sqlite:".length()).split("\\?", 2)[0];
        if (path.startsWith("file:")) path = path.substring("file:".length());
        return Path.of(path).toAbsolutePath().resolveSibling(MasterKeyFile.DEFAULT_NAME);
    }
}
