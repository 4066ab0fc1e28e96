package dev.idem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.server.MasterKeyAdmin;
import dev.idem.store.MasterKeyFile;
import dev.idem.store.MasterKeys;
import dev.idem.store.Resealing;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code idem keys master generate|rewrap|status}: the master keys that seal stored secrets (docs/security.md). */
@Command(
        name = "master",
        mixinStandardHelpOptions = true,
        description = "The master keys that seal stored secrets: make one, add a new primary, re-seal, see which key "
                + "seals what. See docs/security.md.",
        subcommands = {
            MasterKeyCommand.Generate.class,
            MasterKeyCommand.Promote.class,
            MasterKeyCommand.Rewrap.class,
            MasterKeyCommand.Status.class
        })
final class MasterKeyCommand {
    @Command(
            name = "generate",
            mixinStandardHelpOptions = true,
            description =
                    "Make a keyset file (--out), add a new key to one (--add-to; not primary until `promote`), or "
                            + "print one key in base64 for IDEM_MASTER_KEY (--base64). Files are written owner-only.")
    static final class Generate implements Callable<Integer> {
        @Option(names = "--out", description = "Write a new keyset file here (it must not exist).")
        Path out;

        @Option(
                names = "--add-to",
                description = "Add a new key to this keyset file, not primary yet: give every node the file, then "
                        + "`promote` it.")
        Path addTo;

        @Option(names = "--base64", description = "Print one new key, base64, for IDEM_MASTER_KEY.")
        boolean base64;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            int given = (out != null ? 1 : 0) + (addTo != null ? 1 : 0) + (base64 ? 1 : 0);
            if (given != 1)
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "give exactly one of --out <file>, --add-to <file>, --base64");
            PrintWriter o = spec.commandLine().getOut();
            SecureRandom random = new SecureRandom();
            if (base64) {
                byte[] key = new byte[MasterKeys.KEY_BYTES];
                random.nextBytes(key);
                String text = Base64.getEncoder().encodeToString(key);
                o.println(text);
                spec.commandLine()
                        .getErr()
                        .println("idem: key " + MasterKeys.ofBase64Key(text).primaryId()
                                + "; set it as IDEM_MASTER_KEY on every node, and keep a copy apart from the database");
            } else if (out != null) {
                MasterKeys keys = MasterKeys.generate(random, Instant.now());
                try {
                    MasterKeyFile.writeNew(out, keys);
                } catch (FileAlreadyExistsException e) {
                    throw CliException.usage(out + " exists: add a key to it with --add-to " + out, e);
                }
                o.println("wrote " + out + " (owner-only) with key " + keys.primaryId()
                        + "; start every node with --master-key-file " + out
                        + " and keep a copy apart from the database");
            } else {
                MasterKeys keys = MasterKeyFile.load(addTo).withNewKey(random, Instant.now());
                MasterKeyFile.replace(addTo, keys);
                o.println("added " + keys.newestId() + " to " + addTo + " (primary still " + keys.primaryId()
                        + "); restart the nodes one by one with it, then `idem keys master promote --keyset " + addTo
                        + "`");
            }
            o.flush();
            return 0;
        }
    }

    @Command(
            name = "promote",
            mixinStandardHelpOptions = true,
            description = "Make a key of a keyset file its primary (default: the newest). Every node must already hold "
                    + "the key: then restart them one by one with the file, and run `rewrap`.")
    static final class Promote implements Callable<Integer> {
        @Option(names = "--keyset", required = true, description = "The keyset file.")
        Path keyset;

        @CommandLine.Parameters(arity = "0..1", paramLabel = "KEY_ID", description = "mk_…; default: the newest key.")
        String id;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            MasterKeys keys = MasterKeyFile.load(keyset);
            MasterKeys promoted = keys.withPrimary(id == null ? keys.newestId() : id);
            MasterKeyFile.replace(keyset, promoted);
            PrintWriter o = spec.commandLine().getOut();
            o.println(promoted.primaryId() + " is the primary of " + keyset + " (was " + keys.primaryId()
                    + "); restart the nodes one by one with it, then run `idem keys master rewrap`");
            o.flush();
            return 0;
        }
    }

    @Command(
            name = "rewrap",
            mixinStandardHelpOptions = true,
            description = "Re-seal every stored secret under the primary key, in small batches, while nodes run. "
                    + "Safe to stop and run again.")
    static final class Rewrap implements Callable<Integer> {
        @Mixin
        KeysCommand.StoreOptions store;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter o = spec.commandLine().getOut();
            try (MasterKeyAdmin admin = store.openMasterKeyAdmin()) {
                String primary = admin.keys().primaryId();
                o.println("re-sealing under " + primary);
                o.flush();
                Resealing.Outcome done = admin.rewrap((column, n) -> {
                    o.println(column + ": " + n + " re-sealed");
                    o.flush();
                });
                long left = admin.census().notUnder(primary);
                o.println("done: " + done.resealed() + " re-sealed, " + left + " not under " + primary
                        + (left == 0
                                ? ""
                                : " (written meanwhile by a node whose primary is another key: run again"
                                        + " once every node has the new keyset)"));
                o.flush();
                return left == 0 ? 0 : Failures.REFUSED;
            }
        }
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "How many stored secrets each master key seals, and which keys of the keyset seal nothing.")
    static final class Status implements Callable<Integer> {
        @Mixin
        KeysCommand.StoreOptions store;

        @Option(names = "--json", description = "One JSON object (key ids and counts; never a key).")
        boolean json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter o = spec.commandLine().getOut();
            try (MasterKeyAdmin admin = store.openMasterKeyAdmin()) {
                MasterKeys keys = admin.keys();
                Resealing.Census census = admin.census();
                java.util.List<String> unused = keys.ids().stream()
                        .filter(id -> !census.keyIds().contains(id))
                        .toList();
                if (json) {
                    ObjectMapper m = new ObjectMapper();
                    ObjectNode root = m.createObjectNode();
                    root.put("primary", keys.primaryId());
                    root.putPOJO("keyset", keys.ids());
                    root.putPOJO("sealed", census.byColumn());
                    root.put("not_under_primary", census.notUnder(keys.primaryId()));
                    root.putPOJO("unused", unused);
                    o.println(m.writeValueAsString(root));
                } else {
                    o.println("primary " + keys.primaryId() + "; keyset " + String.join(", ", keys.ids()));
                    for (Map.Entry<String, Map<String, Long>> c :
                            census.byColumn().entrySet()) o.println(c.getKey() + ": " + counts(c.getValue()));
                    o.println(census.notUnder(keys.primaryId()) + " not under the primary"
                            + (unused.isEmpty()
                                    ? ""
                                    : "; sealing nothing (can leave the keyset): " + String.join(", ", unused)));
                }
                o.flush();
                return 0;
            }
        }

        /** {@code 3 under mk_…, 1 under mk_…}, {@code 2 in plain text}, or {@code nothing stored}. */
        static String counts(Map<String, Long> byKey) {
            if (byKey.isEmpty()) return "nothing stored";
            return new java.util.TreeMap<>(byKey)
                    .entrySet().stream()
                            .map(e -> e.getValue()
                                    + (e.getKey().equals(Resealing.PLAINTEXT)
                                            ? " in plain text"
                                            : " under " + e.getKey()))
                            .collect(java.util.stream.Collectors.joining(", "));
        }
    }
}
