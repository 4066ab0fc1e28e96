-- Secrets are stored sealed (AES-256-GCM under the master key; docs/security.md). SQL cannot seal, so this marks every
-- secret still in plain text with 'plain:' for the store to seal at start-up, before it serves; it refuses to serve
-- while one is left. The rotated-out secrets of a row become one list (each with its expiry), sealed whole in
-- previous_secrets: a rotation writes the current and the rotated-out secrets in one row update.
ALTER TABLE signing_secrets ADD COLUMN previous_secrets TEXT;
UPDATE signing_secrets SET
    current_secret = 'plain:' || current_secret,
    previous_secrets = CASE WHEN previous_secret IS NULL OR previous_expires_at IS NULL THEN NULL
        ELSE 'plain:' || json_array(json_object('secret', previous_secret, 'expires_at', previous_expires_at))
    END;
ALTER TABLE signing_secrets DROP COLUMN previous_secret;
ALTER TABLE signing_secrets DROP COLUMN previous_expires_at;

ALTER TABLE sources ADD COLUMN previous_secrets TEXT;
UPDATE sources SET
    secret = 'plain:' || secret,
    previous_secrets = CASE WHEN previous_secret IS NULL OR previous_expires_at IS NULL THEN NULL
        ELSE 'plain:' || json_array(json_object('secret', previous_secret, 'expires_at', previous_expires_at))
    END;
ALTER TABLE sources DROP COLUMN previous_secret;
ALTER TABLE sources DROP COLUMN previous_expires_at;
