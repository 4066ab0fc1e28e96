package dev.idem.core.store;

/** The repositories visible inside one transaction. */
public interface StoreTx {
    ProjectRepository projects();

    ApiKeyRepository apiKeys();

    ScheduleRepository schedules();

    DeliveryRepository deliveries();

    SigningSecretRepository signingSecrets();

    IdempotencyRepository idempotency();

    StatsRepository stats();

    /** Inbound sources (docs/sources.md). */
    SourceRepository sources();

    /** Per-tenant settings (alert endpoint and events). */
    SettingsRepository settings();

    /** Applications: a project's customers, owning endpoints. */
    ApplicationRepository applications();

    /** Endpoints: the URLs messages fan out to. */
    EndpointRepository endpoints();

    /** Event types, with their JSON Schemas. */
    EventTypeRepository eventTypes();

    /** Portal links and sessions, portal settings, the audit log. */
    PortalRepository portal();

    /** Messages: events fanned out to endpoints. */
    MessageRepository messages();

    /** Endpoints' success rates, last failures and failing streaks. */
    EndpointHealthRepository endpointHealth();

    /** The spans kept per delivery while tracing is on (docs/tracing.md). */
    DeliveryTraceRepository deliveryTraces();

    /**
     * Signals {@link Store#onDeliveriesDue} subscribers, on every node, once this transaction commits
     * (nothing is sent when it rolls back). Call it after writing a delivery that is due now or soon.
     */
    void notifyDeliveriesDue();
}
