package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem applications list|get|create|update|delete}: your customers, each owning endpoints. An application is
 * named by its id ({@code app_…}) or its uid everywhere.
 */
@Command(
        name = "applications",
        mixinStandardHelpOptions = true,
        description = "Create, list, read, change and delete applications (your customers) on a running Idem server.",
        subcommands = {
            ApplicationsCommand.List.class,
            ApplicationsCommand.Create.class,
            ApplicationsCommand.Update.class
        })
public final class ApplicationsCommand {
    static final String PATH = "/v1/applications";

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List applications, newest first.")
    static final class List extends FanoutTables.Listing implements Callable<Integer> {
        @Override
        public Integer call() {
            conn.print(conn.api().get(PATH + query()), FanoutTables::applications);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one application (by id or uid).")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID_OR_UID") String id) {
        conn.print(conn.api().get(PATH + "/" + Api.segment(id)), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete an application: its endpoints are disabled; everything stays readable.")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "ID_OR_UID") String id) {
        conn.print(conn.api().send("DELETE", PATH + "/" + Api.segment(id), null, null), Views::object);
        return Failures.OK;
    }

    /** The fields create and update share; each given one goes into the body. */
    static class Fields {
        @Option(names = "--name", description = "A name for people.")
        String name;

        @Option(names = "--uid", description = "Your own id for this customer, usable wherever the app_ id is.")
        String uid;

        @Option(names = "--rate-limit", description = "Deliveries a second to all its endpoints together.")
        Integer rateLimit;

        @Option(names = "--metadata", converter = JsonOption.class, description = "A JSON object kept with it.")
        JsonNode metadata;

        ObjectNode body() {
            ObjectNode b = JsonNodeFactory.instance.objectNode();
            if (name != null) b.put("name", name);
            if (uid != null) b.put("uid", uid);
            if (rateLimit != null) b.put("rate_limit", rateLimit);
            if (metadata != null) b.set("metadata", metadata);
            return b;
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an application.")
    static final class Create extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(
                names = "--idempotency-key",
                description = "Sent as Idempotency-Key (run again with it after a failure).")
        String idempotencyKey;

        @Override
        public Integer call() {
            conn.print(conn.api().send("POST", PATH, body(), idempotencyKey), Views::object);
            return Failures.OK;
        }
    }

    @Command(
            name = "update",
            mixinStandardHelpOptions = true,
            description = "Change an application: only the options given change.")
    static final class Update extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "ID_OR_UID")
        String id;

        @Override
        public Integer call() {
            ObjectNode body = body();
            if (body.isEmpty()) throw conn.usage("give at least one option to change (--name, --uid, …)");
            conn.print(conn.api().send("PATCH", PATH + "/" + Api.segment(id), body, null), Views::object);
            return Failures.OK;
        }
    }
}
