package dev.idem.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem sources list|get|create|update|delete}: the inbound sources of a running server (a verifying gateway in
 * front of an internal service). A source's secret is write-only: no answer shows it; {@code update --secret} rotates it.
 */
@Command(
        name = "sources",
        mixinStandardHelpOptions = true,
        description = "Create, list, read, change and delete inbound sources on a running Idem server.",
        subcommands = {SourcesCommand.List.class, SourcesCommand.Create.class, SourcesCommand.Update.class})
public final class SourcesCommand {
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List sources, newest first.")
    static final class List implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(names = "--limit", defaultValue = "10", description = "1 to 100 (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--starting-after", description = "Cursor: the last id of the previous page.")
        String startingAfter;

        @Override
        public Integer call() {
            conn.print(
                    conn.api()
                            .get("/v1/sources"
                                    + Query.of("limit", Integer.toString(limit), "starting_after", startingAfter)),
                    Views::sources);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one source with its ingest URL.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().get("/v1/sources/" + Api.segment(id)), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a source: its ingest URL answers 404 from then on.")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().send("DELETE", "/v1/sources/" + Api.segment(id), null, null), Views::object);
        return Failures.OK;
    }

    /** The fields create and update share; each given one goes into the body, the others are left out. */
    static class Fields {
        @Option(names = "--name", description = "A name for people.")
        String name;

        @Option(names = "--scheme", description = "stripe, github, standard_webhooks or hmac_sha256.")
        String scheme;

        @Option(
                names = "--secret",
                description =
                        "The provider's signing secret (write-only; on update: rotates it, the old one verifies 24 h more).")
        String secret;

        @Option(names = "--header", description = "hmac_sha256: the header carrying the signature.")
        String header;

        @Option(names = "--encoding", description = "hmac_sha256: hex or base64.")
        String encoding;

        @Option(names = "--destination", description = "Where Idem forwards each verified event.")
        String destination;

        @Option(names = "--dedup", description = "auto, none, header:<name> or json:<pointer>.")
        String dedup;

        @Option(names = "--rate-limit", description = "Ingest requests per second this source accepts.")
        Integer rateLimit;

        ObjectNode body() {
            ObjectNode b = JsonNodeFactory.instance.objectNode();
            if (name != null) b.put("name", name);
            if (destination != null) b.put("destination", destination);
            if (dedup != null) b.put("dedup", dedup);
            if (rateLimit != null) b.put("rate_limit", rateLimit);
            ObjectNode verify = JsonNodeFactory.instance.objectNode();
            if (scheme != null) verify.put("scheme", scheme);
            if (secret != null) verify.put("secret", secret);
            if (header != null) verify.put("header", header);
            if (encoding != null) verify.put("encoding", encoding);
            if (!verify.isEmpty()) b.set("verify", verify);
            return b;
        }
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Create a source; prints its ingest URL (point the provider there).")
    static final class Create extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(
                names = "--idempotency-key",
                description = "Sent as Idempotency-Key (run the command again with it after a failure).")
        String idempotencyKey;

        @Override
        public Integer call() {
            // the API names what is missing or wrong (400 with its param); nothing is checked twice here
            conn.print(conn.api().send("POST", "/v1/sources", body(), idempotencyKey), Views::object);
            return Failures.OK;
        }
    }

    @Command(
            name = "update",
            mixinStandardHelpOptions = true,
            description = "Change a source: only the options given change (--secret rotates).")
    static final class Update extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            ObjectNode body = body();
            if (body.isEmpty())
                throw conn.usage("give at least one option to change (--name, --secret, --destination, …)");
            conn.print(conn.api().send("PATCH", "/v1/sources/" + Api.segment(id), body, null), Views::object);
            return Failures.OK;
        }
    }
}
