// Extend the lease to `ttl_ms` from now on Neo4j's clock if this holder still holds it; no row when another holder has taken it.
// mode: write
// returns: optional
// :param name => "maintenance"
// :param holder => "host-1:4242:1a2b3c4d"
// :param ttl_ms => 60000
MATCH (l:Lease {name: $name})
// Writing first takes the node's write lock, so the holder read below is the latest committed one.
SET l.locked_at = datetime()
WITH l
WHERE l.holder = $holder
SET l.expires_at = datetime() + duration({milliseconds: $ttl_ms})
RETURN l.expires_at AS expires_at
