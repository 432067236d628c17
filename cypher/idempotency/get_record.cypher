// The stored answer of an earlier request with the same Idempotency-Key.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param key => 'client-key-1'
MATCH (r:IdempotencyRecord {namespace: $namespace, key: $key})
RETURN r.request_hash AS request_hash, r.status AS status, r.body AS body
