package dev.idem.examples.servlet;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.InboxPruner;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.SequenceGuard;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.servlet.IdemReceiverFilter;
import jakarta.servlet.DispatcherType;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A webhook receiver with no framework: Jetty, one servlet, the Idem filter in front of it, an inbox in the
 * same database as the data. Configure with environment variables:
 * {@code IDEM_SECRET} (required, the whsec_… from {@code GET /v1/signing-secret}), {@code PORT} (default 8090),
 * {@code DATABASE_URL} (default {@code jdbc:sqlite:receiver.db}).
 */
public final class ServletReceiver implements AutoCloseable {
    private final HikariDataSource dataSource;
    private final Server server;
    private final InboxPruner pruner;

    public ServletReceiver(String secret, int port, String databaseUrl) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(databaseUrl);
        cfg.setMaximumPoolSize(databaseUrl.startsWith("jdbc:sqlite:") ? 4 : 10);
        dataSource = new HikariDataSource(cfg);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS reminders (delivery_key VARCHAR(255) PRIMARY KEY,"
                    + " schedule_id VARCHAR(64), sequence BIGINT, body TEXT)");
        }
        JdbcInbox inbox = JdbcInbox.builder(dataSource).build();
        SequenceGuard sequences = SequenceGuard.create(dataSource, "reminder_sequences");
        pruner = new InboxPruner(inbox, DedupWindow.defaults(), Clock.systemUTC()).start(Duration.ofMinutes(10));

        IdemReceiverFilter filter = IdemReceiverFilter.builder(Verifier.standardWebhooks(secret), inbox)
                .build();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler ctx = new ServletContextHandler();
        ctx.addFilter(new FilterHolder(filter), "/webhooks/*", EnumSet.of(DispatcherType.REQUEST));
        ctx.addServlet(new ServletHolder(new ReminderServlet(sequences)), "/webhooks/reminders");
        server.setHandler(ctx);
        server.start();
    }

    /** The port the server listens on. */
    public int port() {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /** The database the receiver writes to. */
    public HikariDataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() throws Exception {
        server.stop();
        pruner.close();
        dataSource.close();
    }

    public static void main(String[] args) throws Exception {
        String secret = System.getenv("IDEM_SECRET");
        if (secret == null || secret.isBlank()) {
            System.err.println("set IDEM_SECRET to your signing secret (whsec_…, from GET /v1/signing-secret)");
            System.exit(2);
        }
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8090"));
        String db = System.getenv()
                .getOrDefault("DATABASE_URL", "jdbc:sqlite:receiver.db?journal_mode=WAL&busy_timeout=10000");
        ServletReceiver receiver = new ServletReceiver(secret, port, db);
        System.out.println("receiving webhooks on http://127.0.0.1:" + receiver.port() + "/webhooks/reminders");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                receiver.close();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        Thread.currentThread().join();
    }
}
