// Take write locks on content stripes of a namespace (ContentLock nodes, one per stripe), so concurrent writes of equal content serialise and the later one finds the earlier one's memory; $stripes sorted, so two writers taking several never wait on each other in a cycle.
// mode: write
// returns: one
// :param namespace => 'default'
// :param stripes => [17, 42]
// :param now => datetime()
UNWIND $stripes AS stripe
MERGE (l:ContentLock {namespace: $namespace, stripe: stripe})
SET l.locked_at = $now
RETURN count(l) AS locked
