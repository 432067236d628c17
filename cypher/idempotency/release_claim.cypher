// Give up a claim on an Idempotency-Key whose work failed, so a retry of the request can do it.
// mode: write
// returns: one
// :param namespace => 'default'
// :param key => 'client-key-1'
// :param token => 'claim-token-1'
OPTIONAL MATCH (r:IdempotencyRecord {namespace: $namespace, key: $key})
WHERE r.token = $token AND r.status IS NULL
WITH r, r.uid AS uid
DELETE r
RETURN count(uid) AS released
