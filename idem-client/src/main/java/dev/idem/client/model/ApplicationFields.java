package dev.idem.client.model;

/** The body of {@code POST /v1/applications} ({@link #create}) or {@code PATCH /v1/applications/{id}} ({@link #update}). */
public final class ApplicationFields extends JsonFields<ApplicationFields> {
    private ApplicationFields() {}

    /** A new application named {@code name}. */
    public static ApplicationFields create(String name) {
        return new ApplicationFields().name(name);
    }

    /** An update: only the fields set change; {@link #clear} clears {@code uid}, {@code metadata}, {@code rate_limit}. */
    public static ApplicationFields update() {
        return new ApplicationFields();
    }

    public ApplicationFields name(String name) {
        return param("name", name);
    }

    /** Your own id for this customer, usable wherever the application's id is. */
    public ApplicationFields uid(String uid) {
        return param("uid", uid);
    }

    /** The most deliveries a second to all its endpoints together. */
    public ApplicationFields rateLimit(int perSecond) {
        return param("rate_limit", perSecond);
    }
}
