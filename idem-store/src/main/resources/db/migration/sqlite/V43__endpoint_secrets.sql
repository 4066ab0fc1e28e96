-- Each endpoint's own signing secret, sealed like every secret (SecretCipher: AES-256-GCM under the master keyset,
-- bound to the row): secret the current one, previous_secrets those rotated out in the last 24 h as one sealed JSON
-- list. Kept apart from the columns fan-out reads, which never open them.
ALTER TABLE endpoints ADD COLUMN secret TEXT;
ALTER TABLE endpoints ADD COLUMN previous_secrets TEXT;
