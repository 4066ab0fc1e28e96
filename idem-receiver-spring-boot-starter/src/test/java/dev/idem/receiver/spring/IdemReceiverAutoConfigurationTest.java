package dev.idem.receiver.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxPruner;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.RedisInbox;
import dev.idem.receiver.TestDatabases;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.servlet.IdemReceiverFilter;
import dev.idem.wire.SignatureCheck;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

class IdemReceiverAutoConfigurationTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static TestDatabases.Pool pg;

    final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemReceiverAutoConfiguration.class));

    @BeforeAll
    static void open() {
        pg = new TestDatabases.Pool(TestDatabases.postgresUrl(), 2);
    }

    @AfterAll
    static void close() {
        pg.close();
    }

    @Test
    void withOnlyASecretItConfiguresAVerifierAMemoryInboxAndTheFilterOnWebhooks() {
        web.withPropertyValues("idem.receiver.secrets=" + SECRET).run(ctx -> {
            assertThat(ctx)
                    .hasSingleBean(Verifier.class)
                    .hasSingleBean(KeyExtractor.class)
                    .hasSingleBean(InboxPruner.class);
            assertThat(ctx.getBean(Inbox.class)).isInstanceOf(MemoryInbox.class);
            FilterRegistrationBean<?> reg = ctx.getBean("idemReceiverFilter", FilterRegistrationBean.class);
            assertThat(reg.getFilter()).isInstanceOf(IdemReceiverFilter.class);
            assertThat(reg.getUrlPatterns()).containsExactly("/webhooks/*");
        });
    }

    @Test
    void withADataSourceTheInboxIsJdbcOnTheConfiguredTable() {
        web.withBean(DataSource.class, () -> pg)
                .withPropertyValues(
                        "idem.receiver.secrets=" + SECRET,
                        "idem.receiver.inbox.table=idem_starter_inbox",
                        "idem.receiver.url-patterns=/hooks/*,/stripe")
                .run(ctx -> {
                    assertThat(ctx.getBean(Inbox.class))
                            .isInstanceOfSatisfying(
                                    JdbcInbox.class, i -> assertThat(i.table()).isEqualTo("idem_starter_inbox"));
                    assertThat(ctx.getBean("idemReceiverFilter", FilterRegistrationBean.class)
                                    .getUrlPatterns())
                            .containsExactly("/hooks/*", "/stripe");
                });
    }

    @Test
    void withARedisUrlTheInboxIsRedis() {
        web.withPropertyValues(
                        "idem.receiver.secrets=" + SECRET,
                        "idem.receiver.inbox.redis-url=" + TestDatabases.REDIS_URL,
                        "idem.receiver.inbox.redis-prefix=" + TestDatabases.REDIS_PREFIX + "starter:")
                .run(ctx -> assertThat(ctx.getBean(Inbox.class)).isInstanceOf(RedisInbox.class));
    }

    @Test
    void theModeAndKeyPropertiesShapeTheVerifierAndTheKeys() {
        web.withPropertyValues(
                        "idem.receiver.secrets=It's a Secret to Everybody",
                        "idem.receiver.mode=github",
                        "idem.receiver.key-json-field=delivery.id")
                .run(ctx -> {
                    Verifier v = ctx.getBean(Verifier.class);
                    byte[] body = "Hello, World!".getBytes(StandardCharsets.UTF_8);
                    SignatureCheck ok = v.verify(
                            Map.of(
                                    "X-Hub-Signature-256",
                                    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")::get,
                            body);
                    assertThat(ok.valid()).isTrue();
                    assertThat(ctx.getBean(KeyExtractor.class)
                                    .extract(
                                            Map.<String, String>of()::get,
                                            "{\"delivery\":{\"id\":\"d-1\"}}".getBytes(StandardCharsets.UTF_8)))
                            .isEqualTo("d-1");
                });
    }

    @Test
    void startupFailsWithoutASecretAndSaysWhichPropertyIsMissing() {
        web.run(ctx -> assertThat(ctx)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("idem.receiver.secrets is required"));
    }

    @Test
    void aDedupWindowShorterThanTheSendersRetryHorizonIsRefusedAtStartup() {
        web.withPropertyValues(
                        "idem.receiver.secrets=" + SECRET,
                        "idem.receiver.dedup-window=2h",
                        "idem.receiver.sender-retry-horizon=24h")
                .run(ctx -> assertThat(ctx)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("2h is shorter than the sender's retry horizon 24h"));
    }

    @Test
    void disabledMeansNoBeansAndAnApplicationVerifierWins() {
        web.withPropertyValues("idem.receiver.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(Inbox.class));
        Verifier mine = (h, b) -> SignatureCheck.ok();
        web.withBean(Verifier.class, () -> mine)
                .run(ctx -> assertThat(ctx.getBean(Verifier.class)).isSameAs(mine));
    }

    @Test
    void outsideAServletApplicationThereIsNoFilter() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemReceiverAutoConfiguration.class))
                .withPropertyValues("idem.receiver.secrets=" + SECRET)
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(Inbox.class);
                    assertThat(ctx).doesNotHaveBean("idemReceiverFilter");
                });
    }
}
