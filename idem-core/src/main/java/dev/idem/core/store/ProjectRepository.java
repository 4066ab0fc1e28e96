package dev.idem.core.store;

import dev.idem.core.Project;
import java.util.Optional;

public interface ProjectRepository {
    void insert(Project project);

    Optional<Project> findByName(String name);

    Optional<Project> find(String id);

    long count();
}
