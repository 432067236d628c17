// Claim an Idempotency-Key before doing the work, or find the record that holds it (unique per namespace and key).
// mode: write
// returns: one
// :param namespace => 'default'
// :param key => 'client-key-1'
// :param request_hash => 'sha256-of-request'
// :param token => 'claim-token-1'
// :param now => datetime()
MERGE (r:IdempotencyRecord {namespace: $namespace, key: $key})
ON CREATE SET r.uid = randomUUID(), r.request_hash = $request_hash, r.token = $token,
              r.claimed_at = $now, r.system_from = $now, r.valid_from = $now
RETURN r.token AS token, r.request_hash AS request_hash, r.status AS status, r.body AS body,
       r.claimed_at AS claimed_at
