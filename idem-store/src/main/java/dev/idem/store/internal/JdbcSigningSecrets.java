package dev.idem.store.internal;

import dev.idem.core.SecretRotation.Retired;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.SigningSecretRepository;
import dev.idem.store.SecretCipher;
import dev.idem.wire.SigningSecret;
import java.util.List;
import java.util.Optional;

/** A tenant's signing secrets, sealed ({@link SealedColumns#SIGNING_CURRENT}, {@link SealedColumns#SIGNING_RETIRED}). */
final class JdbcSigningSecrets implements SigningSecretRepository {
    private final Sql sql;
    private final SecretCipher cipher;

    JdbcSigningSecrets(Sql sql, SecretCipher cipher) {
        this.sql = sql;
        this.cipher = cipher;
    }

    @Override
    public Optional<SigningSecrets> find(Tenant tenant) {
        String rowId = SealedColumns.signingRowId(tenant);
        return sql.one(
                "SELECT current_secret, previous_secrets FROM signing_secrets WHERE project_id = ? AND mode = ?",
                rs -> {
                    var cur = SealedColumns.SIGNING_CURRENT;
                    var ret = SealedColumns.SIGNING_RETIRED;
                    String current = cipher.open(cur.table(), rowId, cur.column(), rs.getString(cur.column()));
                    String sealed = rs.getString(ret.column());
                    List<Retired<String>> retired = sealed == null
                            ? List.of()
                            : RetiredCodec.decode(
                                    cipher.open(ret.table(), rowId, ret.column(), sealed), ret.toString());
                    return new SigningSecrets(
                            tenant,
                            SigningSecret.parse(current),
                            retired.stream()
                                    .map(r -> new Retired<>(SigningSecret.parse(r.secret()), r.expiresAt()))
                                    .toList());
                },
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public void save(SigningSecrets s) {
        String rowId = SealedColumns.signingRowId(s.tenant());
        var cur = SealedColumns.SIGNING_CURRENT;
        var ret = SealedColumns.SIGNING_RETIRED;
        String retired = RetiredCodec.encode(s.retired().stream()
                .map(r -> new Retired<>(r.secret().reveal(), r.expiresAt()))
                .toList());
        sql.update(
                "INSERT INTO signing_secrets (project_id, mode, current_secret, previous_secrets) VALUES (?, ?, ?, ?) "
                        + "ON CONFLICT (project_id, mode) DO UPDATE SET current_secret = excluded.current_secret, "
                        + "previous_secrets = excluded.previous_secrets",
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                cipher.seal(cur.table(), rowId, cur.column(), s.current().reveal()),
                retired == null ? null : cipher.seal(ret.table(), rowId, ret.column(), retired));
    }
}
