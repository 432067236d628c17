// Remember the answer to a request made with an Idempotency-Key.
// mode: write
// returns: one
// :param namespace => 'default'
// :param key => 'client-key-1'
// :param request_hash => 'sha256-of-request'
// :param status => 201
// :param body => '{}'
// :param now => datetime()
CREATE (r:IdempotencyRecord {namespace: $namespace, key: $key, uid: randomUUID(), request_hash: $request_hash,
                             status: $status, body: $body, system_from: $now, valid_from: $now})
RETURN r.key AS key
