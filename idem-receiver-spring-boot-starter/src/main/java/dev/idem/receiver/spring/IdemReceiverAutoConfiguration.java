package dev.idem.receiver.spring;

import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxPruner;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.OpenTelemetryTracing;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.ReceiverTracing;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.servlet.IdemReceiverFilter;
import java.time.Clock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Configures the receiver SDK from {@code idem.receiver.*}: a {@link Verifier}, a {@link KeyExtractor}, an
 * {@link Inbox} (JDBC over the application's DataSource, else Redis, else memory), the {@link Receiver} that
 * puts them together (inject it to receive webhooks outside the filter, e.g. from a message listener), a pruner
 * and, in a servlet application, the {@link IdemReceiverFilter} around that Receiver on
 * {@code idem.receiver.url-patterns}. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
            "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"
        })
@ConditionalOnProperty(prefix = "idem.receiver", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdemReceiverProperties.class)
public class IdemReceiverAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(IdemReceiverAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    public Verifier idemVerifier(IdemReceiverProperties props) {
        if (props.getSecrets() == null || props.getSecrets().isEmpty()) {
            throw new IllegalStateException("idem.receiver.secrets is required: the signing secret(s) of your webhook"
                    + " sender (whsec_… for Idem). To run without the receiver set idem.receiver.enabled=false.");
        }
        return props.getMode().verifier(props.getSecrets(), props.getTolerance(), Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    public KeyExtractor idemKeyExtractor(IdemReceiverProperties props) {
        KeyExtractor k = props.getMode().defaultKeys();
        if (props.getKeyHeader() != null) k = k.withHeader(props.getKeyHeader());
        if (props.getKeyJsonField() != null) k = k.withJsonField(props.getKeyJsonField());
        return k;
    }

    @Bean
    @ConditionalOnMissingBean
    public DedupWindow idemDedupWindow(IdemReceiverProperties props) {
        try {
            return DedupWindow.of(props.getDedupWindow(), props.getSenderRetryHorizon());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("idem.receiver.dedup-window: " + e.getMessage(), e);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    public Inbox idemInbox(IdemReceiverProperties props, ObjectProvider<DataSource> dataSources, DedupWindow window) {
        IdemReceiverProperties.Inbox p = props.getInbox();
        String type = p.getType().toLowerCase(java.util.Locale.ROOT);
        DataSource ds = dataSources.getIfUnique();
        if (type.equals("auto")) type = ds != null ? "jdbc" : p.getRedisUrl() != null ? "redis" : "memory";
        switch (type) {
            case "jdbc" -> {
                if (ds == null)
                    throw new IllegalStateException("idem.receiver.inbox.type=jdbc needs a single DataSource bean");
                return JdbcInbox.builder(ds)
                        .table(p.getTable())
                        .createTable(p.isCreateTable())
                        .claimLease(p.getClaimLease())
                        .build();
            }
            case "redis" -> {
                if (p.getRedisUrl() == null)
                    throw new IllegalStateException(
                            "idem.receiver.inbox.type=redis needs idem.receiver.inbox.redis-url");
                return dev.idem.receiver.RedisInbox.connect(
                        p.getRedisUrl(), p.getRedisPrefix(), p.getClaimLease(), window);
            }
            case "memory" -> {
                log.warn(
                        "idem receiver: in-memory inbox; processed keys are forgotten on restart and not shared between"
                                + " instances. Give the application a DataSource or set idem.receiver.inbox.redis-url.");
                return new MemoryInbox(Clock.systemUTC(), p.getClaimLease());
            }
            default ->
                throw new IllegalStateException(
                        "idem.receiver.inbox.type must be auto, jdbc, redis or memory, not " + type);
        }
    }

    /** Verify → key → inbox → handler; handlers run in the claiming transaction over a JDBC inbox by default. */
    @Bean
    @ConditionalOnMissingBean
    public Receiver idemReceiver(
            Verifier verifier,
            KeyExtractor keys,
            Inbox inbox,
            IdemReceiverProperties props,
            ObjectProvider<ReceiverTracing> tracing) {
        Receiver.Builder b = Receiver.builder(verifier, inbox).keys(keys);
        if (props.getTransactional() != null) b.transactional(props.getTransactional());
        ReceiverTracing t = tracing.getIfUnique();
        if (t != null) b.tracing(t);
        return b.build();
    }

    /** Prunes every {@code idem.receiver.prune-interval}; an interval of 0 leaves it to the application. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public InboxPruner idemInboxPruner(Inbox inbox, DedupWindow window, IdemReceiverProperties props) {
        InboxPruner pruner = new InboxPruner(inbox, window, Clock.systemUTC());
        if (!props.getPruneInterval().isZero()) pruner.start(props.getPruneInterval());
        return pruner;
    }

    /**
     * Spans through the application's {@code OpenTelemetry} bean (Spring Boot's OpenTelemetry setup defines one)
     * rather than {@code GlobalOpenTelemetry}, which Boot does not register. The filter is ordered after Boot's
     * server observation filter, so its HTTP server span is current and becomes the handler span's parent.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.opentelemetry.api.OpenTelemetry")
    static class TracingConfiguration {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(io.opentelemetry.api.OpenTelemetry.class)
        ReceiverTracing idemReceiverTracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            return OpenTelemetryTracing.of(openTelemetry);
        }
    }

    /** The filter, in servlet applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    static class FilterConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "idemReceiverFilter")
        FilterRegistrationBean<IdemReceiverFilter> idemReceiverFilter(
                Receiver receiver, IdemReceiverProperties props, ObjectProvider<DataSource> dataSources) {
            IdemReceiverFilter.Builder b = IdemReceiverFilter.builder(receiver)
                    .storeResponses(props.isStoreResponses())
                    .maxBodyBytes(props.getMaxBodyBytes());
            DataSource ds = dataSources.getIfUnique();
            // the binder only acts on a claiming transaction, which only a JDBC inbox opens
            if (receiver.inbox() instanceof JdbcInbox && ds != null && springJdbcPresent())
                b.connectionBinder(new SpringConnectionBinder(ds));
            FilterRegistrationBean<IdemReceiverFilter> reg = new FilterRegistrationBean<>(b.build());
            reg.setName("idemReceiverFilter");
            reg.setUrlPatterns(props.getUrlPatterns());
            // before anything that might read the body or need a session: the body must be raw for verification
            reg.setOrder(Ordered.HIGHEST_PRECEDENCE + 20);
            return reg;
        }

        private static boolean springJdbcPresent() {
            try {
                Class.forName("org.springframework.jdbc.datasource.ConnectionHolder");
                return true;
            } catch (ClassNotFoundException e) {
                return false;
            }
        }
    }
}
