package dev.idem.server.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jetty.JettyConnectionMetrics;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.jetty12.server.TimedHandler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.eclipse.jetty.server.Server;

/**
 * The node's {@code /metrics} registry: the engine's own meters ({@code idem_*}) plus what an operator expects of
 * any JVM service, all from Micrometer's binders: JVM memory, GC, threads and class loading ({@code jvm_*}),
 * CPU, uptime and open files ({@code process_*}, {@code system_*}), and the HTTP server: requests by method,
 * status and outcome ({@code jetty_server_requests_seconds}, no path tag so ids cannot grow the series), Jetty's
 * thread pool ({@code jetty_threads_*}) and connections ({@code jetty_connections_*}).
 */
public final class Metrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();

    public Metrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Before the server starts: times every request (Javalin's handler goes inside) and meters the thread pool. The
     * timer is inserted in front of the handlers already there (SlowClients' body loader), not put in their place.
     */
    static void instrument(Server server, MeterRegistry registry) {
        server.insertHandler(new TimedHandler(registry, Tags.empty()));
        new JettyServerThreadPoolMetrics(server.getThreadPool(), Tags.empty()).bindTo(registry);
    }

    /**
     * The store's group commit: {@code idem_write_groups_total} (transactions the writer ran), {@code
     * idem_write_grouped_total} (requests' writes in them; their ratio is the mean group size) and {@code
     * idem_write_groups_rerun_total} (groups rolled back because one write failed, then written one by one).
     */
    public static void writeGroups(MeterRegistry registry, dev.idem.core.store.Store store) {
        io.micrometer.core.instrument.FunctionCounter.builder(
                        "idem.write.groups", store, s -> s.writeGroups().groups())
                .description("transactions the store's writer ran for grouped writes")
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder(
                        "idem.write.grouped", store, s -> s.writeGroups().works())
                .description("writes (ingests, creates, message sends) committed in groups")
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder(
                        "idem.write.groups.rerun", store, s -> s.writeGroups().rerun())
                .description("groups rolled back because one write failed, then written one by one")
                .register(registry);
    }

    /** Once the server's connectors exist (after start). */
    static void instrumentConnectors(Server server, MeterRegistry registry) {
        JettyConnectionMetrics.addToAllConnectors(server, registry, Tags.empty());
    }

    /** Unhooks the GC notification listener (a JVM may run several nodes in tests). */
    @Override
    public void close() {
        gc.close();
    }
}
