// Link memory versions drawn from a unit of a source with EXTRACTED_FROM (one edge per memory and source; unit keys listed on it).
// mode: write
// returns: one
// :param namespace => 'default'
// :param source_uid => 'uid-of-source'
// :param memory_uids => ['uid-of-memory-version']
// :param unit => 'episode-1'
// :param now => datetime()
MATCH (s:Source {namespace: $namespace, uid: $source_uid})
UNWIND $memory_uids AS memory_uid
MATCH (m:Memory {namespace: $namespace, uid: memory_uid})
MERGE (m)-[r:EXTRACTED_FROM]->(s)
ON CREATE SET r.units = [$unit], r.at = $now
ON MATCH SET r.units = CASE WHEN $unit IN r.units THEN r.units ELSE r.units + $unit END
RETURN count(DISTINCT m) AS linked
