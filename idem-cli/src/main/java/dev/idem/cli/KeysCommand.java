package dev.idem.cli;

import dev.idem.core.ApiKey;
import dev.idem.core.Mode;
import dev.idem.core.store.StoreNotFoundException;
import dev.idem.server.KeyAdmin;
import dev.idem.server.ServerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem keys create|list|revoke}: API keys, managed on the store directly by whoever operates it. */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description =
                "Manage API keys on the store (same --data-dir / --database-url as serve). Keys are stored hashed and shown once.",
        subcommands = {
            KeysCommand.Create.class,
            KeysCommand.List.class,
            KeysCommand.Revoke.class,
            MasterKeyCommand.class
        })
public final class KeysCommand {
    /** Where the store is, as for serve. */
    static final class StoreOptions {
        @Option(
                names = "--data-dir",
                defaultValue = "${env:IDEM_DATA_DIR:-idem-data}",
                description = "Embedded SQLite directory (env IDEM_DATA_DIR, default ${DEFAULT-VALUE}).")
        Path dataDir;

        @Option(
                names = "--database-url",
                defaultValue = "${env:IDEM_DATABASE_URL}",
                description = "jdbc:postgresql://… (env IDEM_DATABASE_URL).")
        String databaseUrl;

        @Mixin
        MasterKeyOptions masterKey;

        @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
        CommandLine.Model.CommandSpec spec;

        /** The store of {@code --data-dir} / {@code --database-url}; it must exist (keys never creates a store: a typo in a path must not make an empty one). */
        KeyAdmin open() {
            return opening(config -> KeyAdmin.open(config, masterKey.given()));
        }

        /** The store for {@code keys master status|rewrap}, opened with the master keys given (or its own keyset). */
        dev.idem.server.MasterKeyAdmin openMasterKeyAdmin() {
            return opening(config -> dev.idem.server.MasterKeyAdmin.open(config, masterKey.given()));
        }

        private <T> T opening(java.util.function.Function<ServerConfig, T> open) {
            ServerConfig config;
            try {
                config = ServerConfig.builder()
                        .port(0)
                        .dataDir(dataDir)
                        .database(
                                ServeCommand.blankToNull(databaseUrl),
                                System.getenv("IDEM_DATABASE_USER"),
                                System.getenv("IDEM_DATABASE_PASSWORD"))
                        .nodeId("idem-keys")
                        .build();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                return open.apply(config);
            } catch (StoreNotFoundException e) {
                String option = databaseUrl == null || databaseUrl.isBlank()
                        ? "--data-dir (IDEM_DATA_DIR)"
                        : "--database-url (IDEM_DATABASE_URL)";
                throw CliException.usage(
                        e.getMessage() + ": keys live in the store a node uses; point " + option
                                + " at it, or start `idem serve` there once to create it",
                        e);
            }
        }

        /** A project name that is invalid or names no project is bad usage. */
        <T> T run(java.util.function.Function<KeyAdmin, T> work) {
            try (KeyAdmin admin = open()) {
                return work.apply(admin);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a key (and the project, if new).")
    static final class Create implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--project", defaultValue = "default", description = "Project name (default ${DEFAULT-VALUE}).")
        String project;

        @Option(names = "--mode", defaultValue = "test", description = "test or live (default ${DEFAULT-VALUE}).")
        Mode mode;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            KeyAdmin.NewKey k = store.run(admin -> admin.create(project, mode));
            var out = spec.commandLine().getOut();
            out.println(k.secret());
            out.println("id " + k.key().id() + ", project " + k.project().name() + ", mode " + mode.wireName()
                    + " (shown once; store it now)");
            out.flush();
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List a project's keys (prefixes only).")
    static final class List implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--project", defaultValue = "default", description = "Project name (default ${DEFAULT-VALUE}).")
        String project;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            for (ApiKey k : store.run(admin -> admin.list(project)))
                out.println(k.id() + "  " + k.tenant().mode().wireName() + "  " + k.displayPrefix() + "…  created "
                        + k.createdAt() + (k.active() ? "" : "  REVOKED " + k.revokedAt()));
            out.flush();
            return 0;
        }
    }

    @Command(
            name = "revoke",
            mixinStandardHelpOptions = true,
            description = "Revoke a key by id; effective on the next request.")
    static final class Revoke implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Parameters(paramLabel = "KEY_ID")
        String keyId;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (!store.run(admin -> admin.revoke(keyId)))
                throw CliException.refused("no active key " + keyId + " (see `idem keys list`)");
            spec.commandLine().getOut().println("revoked " + keyId);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
