package dev.idem.core.store;

/** The repositories visible inside one transaction. */
public interface StoreTx {
    ProjectRepository projects();

    ApiKeyRepository apiKeys();

    ScheduleRepository schedules();

    DeliveryRepository deliveries();

    SigningSecretRepository signingSecrets();

    IdempotencyRepository idempotency();
}
