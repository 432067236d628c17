// The latest decisions in force as a table (current versions valid now: a superseded, rejected or invalidated decision is no longer listed), newest first: version, status, confidence, who changed it last, and each trace behind it (origin, task, conclusion).
// mode: read
// returns: many
// :params {namespace: 'default', limit: 10}
// :param namespace => 'default'
// :param limit => 10
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL AND d.valid_from <= datetime() AND (d.valid_to IS NULL OR d.valid_to > datetime())
WITH d ORDER BY d.system_from DESC LIMIT toInteger($limit)
CALL (d) {
  OPTIONAL MATCH (t:ReasoningTrace)-[:PRODUCED]->(v:Decision {namespace: d.namespace, memory_id: d.memory_id})
  WITH t, v ORDER BY t.system_from
  RETURN collect(CASE WHEN t IS NULL THEN null
    ELSE t.created_by_origin + ' (v' + v.version + '): ' + t.task_text + ' => ' + coalesce(t.conclusion, '') END) AS reasoning
}
RETURN d.content AS decision, d.version AS version, d.status AS status, d.confidence AS confidence,
       d.system_from AS changed_at, d.last_modified_by_origin + '/' + d.last_modified_by_actor AS changed_by,
       reasoning, d.memory_id AS memory_id
ORDER BY changed_at DESC
