// The memories EXTRACTED_FROM a source, one row per (unit, memory), with each trace's stored quality.
// mode: read
// returns: many
// :param namespace => 'default'
// :param source_uid => 'uid-of-source'
MATCH (s:Source {namespace: $namespace, uid: $source_uid})<-[r:EXTRACTED_FROM]-(m:Memory)
WHERE m.namespace = $namespace
UNWIND r.units AS unit
RETURN unit, m.memory_id AS memory_id, m.kind AS kind, m.quality_verdict AS quality_verdict,
       m.quality_score AS quality_score, coalesce(m.quality_issues, []) AS quality_issues
ORDER BY unit, m.system_from, m.memory_id
