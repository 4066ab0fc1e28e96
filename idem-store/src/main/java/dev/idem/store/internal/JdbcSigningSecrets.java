package dev.idem.store.internal;

import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.SigningSecretRepository;
import dev.idem.wire.SigningSecret;
import java.util.Optional;

final class JdbcSigningSecrets implements SigningSecretRepository {
    private final Sql sql;

    JdbcSigningSecrets(Sql sql) {
        this.sql = sql;
    }

    @Override
    public Optional<SigningSecrets> find(Tenant tenant) {
        return sql.one(
                "SELECT current_secret, previous_secret, previous_expires_at FROM signing_secrets WHERE project_id = ? AND mode = ?",
                rs -> {
                    String previous = rs.getString("previous_secret");
                    return new SigningSecrets(
                            tenant,
                            SigningSecret.parse(rs.getString("current_secret")),
                            previous == null ? null : SigningSecret.parse(previous),
                            Sql.instant(rs, "previous_expires_at"));
                },
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public void save(SigningSecrets s) {
        sql.update(
                "INSERT INTO signing_secrets (project_id, mode, current_secret, previous_secret, previous_expires_at) "
                        + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id, mode) DO UPDATE SET current_secret = excluded.current_secret, "
                        + "previous_secret = excluded.previous_secret, previous_expires_at = excluded.previous_expires_at",
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                s.current().reveal(),
                s.previous() == null ? null : s.previous().reveal(),
                s.previousExpiresAt());
    }
}
