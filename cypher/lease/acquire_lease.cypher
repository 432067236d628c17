// Take the lease when it is free, expired or already this holder's, until `ttl_ms` from now on Neo4j's clock; the row says who holds it afterwards.
// mode: write
// returns: one
// :param name => "maintenance"
// :param holder => "host-1:4242:1a2b3c4d"
// :param ttl_ms => 60000
MERGE (l:Lease {name: $name})
ON CREATE SET l.created_at = datetime(), l.rounds = 0
// Writing first takes the node's write lock, so the holder and expiry read below are the latest committed ones.
SET l.locked_at = datetime()
WITH l, datetime() AS now
WITH l, now, (l.holder IS NULL OR l.holder = $holder OR l.expires_at <= now) AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
  SET l.holder = $holder,
      l.acquired_at = now,
      l.expires_at = now + duration({milliseconds: $ttl_ms}),
      l.rounds = coalesce(l.rounds, 0) + 1
)
RETURN free AS acquired, l.holder AS holder, l.expires_at AS expires_at, l.rounds AS rounds
