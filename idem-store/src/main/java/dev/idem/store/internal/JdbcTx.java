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

/** The repositories over one transaction's connection; valid only inside that transaction. */
final class JdbcTx implements StoreTx {
    private final Sql sql;
    private final Dialect dialect;
    private final DueSignal signal;
    private boolean signalled;

    JdbcTx(Sql sql, Dialect dialect, DueSignal signal) {
        this.sql = sql;
        this.dialect = dialect;
        this.signal = signal;
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
        return new JdbcDeliveries(sql);
    }

    @Override
    public SigningSecretRepository signingSecrets() {
        return new JdbcSigningSecrets(sql);
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
        return new JdbcSources(sql, dialect);
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
        return new JdbcEndpoints(sql, dialect);
    }

    @Override
    public dev.idem.core.store.EventTypeRepository eventTypes() {
        return new JdbcEventTypes(sql);
    }

    @Override
    public void notifyDeliveriesDue() {
        if (signalled) return;
        signalled = true;
        signal.inTransaction(sql.connection());
    }

    boolean signalled() {
        return signalled;
    }
}
