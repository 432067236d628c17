// Store the answer of the request that holds the claim on an Idempotency-Key (the claim becomes a replayable record).
// mode: write
// returns: one
// :param namespace => 'default'
// :param key => 'client-key-1'
// :param token => 'claim-token-1'
// :param status => 201
// :param body => '{}'
// :param now => datetime()
OPTIONAL MATCH (r:IdempotencyRecord {namespace: $namespace, key: $key})
WHERE r.token = $token AND r.status IS NULL
SET r.status = $status, r.body = $body, r.completed_at = $now
RETURN count(r) AS completed
