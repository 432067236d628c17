// Lock a source for the writing of one unit, and return what is already recorded from that unit (concurrent ingests of one source write each unit once).
// mode: write
// returns: many
// :param namespace => 'default'
// :param source_uid => 'uid-of-source'
// :param unit => 'request-1'
// :param now => datetime()
MATCH (s:Source {namespace: $namespace, uid: $source_uid})
// Writing first takes the source's write lock until this unit's transaction ends: a concurrent
// writer of the same source waits here, then reads the edges the first one committed.
SET s.last_unit_at = $now
WITH s
MATCH (s)<-[r:EXTRACTED_FROM]-(m:Memory)
WHERE m.namespace = $namespace AND $unit IN r.units
RETURN $unit AS unit, m.memory_id AS memory_id, m.kind AS kind,
       m.quality_verdict AS quality_verdict, m.quality_score AS quality_score,
       coalesce(m.quality_issues, []) AS quality_issues
ORDER BY m.system_from, m.memory_id
