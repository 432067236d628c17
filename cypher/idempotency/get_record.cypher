// The record of an Idempotency-Key: the stored answer of an earlier request, or (status null) a claim still in flight.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param key => 'client-key-1'
MATCH (r:IdempotencyRecord {namespace: $namespace, key: $key})
RETURN r.token AS token, r.request_hash AS request_hash, r.status AS status, r.body AS body,
       r.claimed_at AS claimed_at
