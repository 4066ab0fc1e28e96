package dev.idem.store.internal;

import dev.idem.core.Project;
import dev.idem.core.store.ProjectRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

final class JdbcProjects implements ProjectRepository {
    private final Sql sql;

    JdbcProjects(Sql sql) {
        this.sql = sql;
    }

    @Override
    public void insert(Project p) {
        sql.update("INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)", p.id(), p.name(), p.createdAt());
    }

    @Override
    public Optional<Project> findByName(String name) {
        return sql.one("SELECT id, name, created_at FROM projects WHERE name = ?", JdbcProjects::map, name);
    }

    @Override
    public Optional<Project> find(String id) {
        return sql.one("SELECT id, name, created_at FROM projects WHERE id = ?", JdbcProjects::map, id);
    }

    @Override
    public long count() {
        return sql.one("SELECT COUNT(*) FROM projects", rs -> rs.getLong(1)).orElse(0L);
    }

    private static Project map(ResultSet rs) throws SQLException {
        return new Project(rs.getString("id"), rs.getString("name"), Sql.instant(rs, "created_at"));
    }
}
