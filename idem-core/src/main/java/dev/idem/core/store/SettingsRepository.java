package dev.idem.core.store;

import dev.idem.core.ProjectSettings;
import dev.idem.core.Tenant;

/** Per-tenant settings ({@code GET/PATCH /v1/settings}). */
public interface SettingsRepository {
    /** The tenant's settings; {@link ProjectSettings#defaults} when it never saved any. */
    ProjectSettings find(Tenant tenant);

    /** Inserts or replaces the tenant's settings. */
    void save(ProjectSettings settings);
}
