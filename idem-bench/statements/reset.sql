-- Puts the 10,000 burst rows back to due, between two runs of a claim.
UPDATE deliveries SET status='scheduled', lease_owner=NULL, lease_expires_at=NULL, attempt_count=0, next_attempt_at = 1795694400000 - 1000 WHERE id LIKE 'dlv_b%';
VACUUM deliveries;
