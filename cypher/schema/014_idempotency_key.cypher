// An Idempotency-Key is used once per namespace.
// mode: schema
// returns: none
CREATE CONSTRAINT idempotency_key IF NOT EXISTS FOR (r:IdempotencyRecord) REQUIRE (r.namespace, r.key) IS UNIQUE
