// Take over a claim on an Idempotency-Key held longer than the stale limit (its holder died before answering).
// mode: write
// returns: optional
// :param namespace => 'default'
// :param key => 'client-key-1'
// :param token => 'claim-token-2'
// :param stale_before => datetime() - duration('PT2M')
// :param now => datetime()
MATCH (r:IdempotencyRecord {namespace: $namespace, key: $key})
WHERE r.status IS NULL AND r.claimed_at < $stale_before
SET r.token = $token, r.claimed_at = $now
RETURN r.token AS token
