// Link a newer memory version to the older one it replaces.
// mode: write
// returns: one
// :param namespace => 'default'
// :param new_uid => 'uid-of-new'
// :param old_uid => 'uid-of-old'
// :param reason => 'keyed value replaced'
// :param origin => 'user'
// :param actor => 'browser'
// :param now => datetime()
MATCH (new:Memory {namespace: $namespace, uid: $new_uid})
MATCH (old:Memory {namespace: $namespace, uid: $old_uid})
MERGE (new)-[r:SUPERSEDES]->(old)
ON CREATE SET r.reason = $reason, r.origin = $origin, r.actor = $actor, r.at = $now
RETURN count(r) AS linked
