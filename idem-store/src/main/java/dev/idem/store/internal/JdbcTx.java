package dev.idem.store.internal;

import dev.idem.core.store.ApiKeyRepository;
import dev.idem.core.store.DeliveryRepository;
import dev.idem.core.store.IdempotencyRepository;
import dev.idem.core.store.ProjectRepository;
import dev.idem.core.store.ScheduleRepository;
import dev.idem.core.store.SigningSecretRepository;
import dev.idem.core.store.SourceRepository;
import dev.idem.core.store.StatsRepository;
import dev.idem.core.store.StoreTx;
import dev.idem.store.SecretCipher;

/** The repositories over one transaction's connection; valid only inside that transaction. */
final class JdbcTx implements StoreTx {
    private final Sql sql;
    private final Dialect dialect;
    private final DueSignal signal;
    private final SecretCipher cipher;
    private boolean signalled;

    /** For work that reads no secret (the queue's alerts): the secret repositories refuse. */
    JdbcTx(Sql sql, Dialect dialect, DueSignal signal) {
        this(sql, dialect, signal, null);
    }

    JdbcTx(Sql sql, Dialect dialect, DueSignal signal, SecretCipher cipher) {
        this.sql = sql;
        this.dialect = dialect;
        this.signal = signal;
        this.cipher = cipher;
    }

    @Override
    public ProjectRepository projects() {
        return new JdbcProjects(sql);
    }

    @Override
    public ApiKeyRepository apiKeys() {
        return new JdbcApiKeys(sql);
    }

    @Override
    public ScheduleRepository schedules() {
        return new JdbcSchedules(sql, dialect);
    }

    @Override
    public DeliveryRepository deliveries() {
        return new JdbcDeliveries(sql, dialect);
    }

    @Override
    public SigningSecretRepository signingSecrets() {
        return new JdbcSigningSecrets(sql, cipher());
    }

    @Override
    public IdempotencyRepository idempotency() {
        return new JdbcIdempotency(sql, dialect);
    }

    @Override
    public StatsRepository stats() {
        return new JdbcStats(sql);
    }

    @Override
    public SourceRepository sources() {
        return new JdbcSources(sql, dialect, cipher());
    }

    @Override
    public dev.idem.core.store.SettingsRepository settings() {
        return new JdbcSettings(sql);
    }

    @Override
    public dev.idem.core.store.ApplicationRepository applications() {
        return new JdbcApplications(sql, dialect);
    }

    @Override
    public dev.idem.core.store.EndpointRepository endpoints() {
        return new JdbcEndpoints(sql, dialect, cipher());
    }

    @Override
    public dev.idem.core.store.EventTypeRepository eventTypes() {
        return new JdbcEventTypes(sql);
    }

    @Override
    public dev.idem.core.store.PortalRepository portal() {
        return new JdbcPortal(sql, dialect);
    }

    @Override
    public dev.idem.core.store.MessageRepository messages() {
        return new JdbcMessages(sql, dialect);
    }

    @Override
    public dev.idem.core.store.EndpointHealthRepository endpointHealth() {
        return new JdbcEndpointHealth(sql);
    }

    @Override
    public dev.idem.core.store.DeliveryTraceRepository deliveryTraces() {
        return new JdbcDeliveryTraces(sql);
    }

    @Override
    public void notifyDeliveriesDue() {
        if (signalled) return;
        signalled = true;
        signal.inTransaction(sql.connection());
    }

    /** The cipher of the store's master keys, for repositories of tables with {@link SealedColumns}. */
    SecretCipher cipher() {
        if (cipher == null) throw new IllegalStateException("this transaction has no master keys: it reads no secret");
        return cipher;
    }

    boolean signalled() {
        return signalled;
    }
}
