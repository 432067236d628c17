// For memories a ranked trace produced that no longer hold: the other memories that replaced them (a version of theirs SUPERSEDES a version of the ended one: an ADR that supersedes another), so the reasoning that replaced an ended trace ranks above it.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_ids => ['memory-id-of-an-ended-decision']
UNWIND $memory_ids AS ended_id
MATCH (newer:Memory {namespace: $namespace})-[:SUPERSEDES]->(:Memory {namespace: $namespace, memory_id: ended_id})
WHERE newer.memory_id <> ended_id
RETURN ended_id, collect(DISTINCT newer.memory_id) AS replaced_by
