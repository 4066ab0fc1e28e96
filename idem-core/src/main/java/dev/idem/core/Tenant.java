package dev.idem.core;

import java.util.Objects;

/** The (project, mode) every object belongs to; an object is invisible from any other tenant. */
public record Tenant(String projectId, Mode mode) {
    public Tenant {
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(mode, "mode");
    }
}
