// Traces by id in one round trip (one trace, a lineage, a page of retrieval results): each with its task, steps in order (rejections, cited versions and whether each still holds; a cited memory whose origin the reader may not see keeps its id, version and kind but not its content, `hidden: true`) and what it produced (the produced version and, when it changed since, the memory's latest version); the trace's and produced memories' period bounds as UTC ISO-8601 text (parsed by `records.with_instants`: the driver's DateTime hydration cost ~0.1 ms a value); ids not found give no row.
// mode: read
// returns: many
// :param namespace => 'default'
// :param trace_ids => ['trace-memory-id']
// :param now => datetime()
// :param origins => ['ingestion', 'user']
UNWIND $trace_ids AS trace_id
// One row per trace: its recorded version (the lowest) holds the steps. A trace is immutable; a later
// version can only be left by a lifecycle write from before traces were refused one.
CALL (trace_id) {
  MATCH (t:Memory {namespace: $namespace, memory_id: trace_id})
  WHERE t:ReasoningTrace
  RETURN t ORDER BY t.version LIMIT 1
}
OPTIONAL MATCH (t)-[:SERVED]->(task:Task)
CALL (t) {
  OPTIONAL MATCH (t)-[:HAS_STEP]->(s:ReasoningStep)
  OPTIONAL MATCH (r:ReasoningStep)-[:REJECTS]->(s)
  WITH s, min(r.index) AS rejected_by
  OPTIONAL MATCH (s)-[:REJECTS]->(x:ReasoningStep)
  WITH s, rejected_by, collect(x.index) AS rejects
  CALL (s) {
    OPTIONAL MATCH (s)-[:CITES]->(c:Memory)
    OPTIONAL MATCH (latest:Memory {namespace: c.namespace, memory_id: c.memory_id})
    WHERE latest.system_to IS NULL
    OPTIONAL MATCH (last:Memory {namespace: c.namespace, memory_id: c.memory_id})
    WITH c, latest, max(last.system_to) AS closed_at
    OPTIONAL MATCH (other:Memory)-[sup:SUPERSEDES]->(:Memory {namespace: c.namespace, memory_id: c.memory_id})
    WHERE other.memory_id <> c.memory_id
    WITH c, latest, closed_at, min(sup.at) AS replaced_at
    WITH c, latest, closed_at, replaced_at, coalesce(c.created_by_origin IN $origins, false) AS visible,
         CASE
           WHEN c IS NULL THEN null
           WHEN latest IS NULL THEN 'retracted'
           WHEN replaced_at IS NOT NULL THEN 'superseded'
           WHEN latest.valid_to IS NOT NULL AND latest.valid_to <= $now THEN 'invalidated'
           WHEN latest.version > c.version THEN 'superseded'
           ELSE null
         END AS change
    RETURN collect(CASE WHEN c IS NULL THEN null ELSE {
      memory_id: c.memory_id, version: c.version, kind: c.kind,
      content: CASE WHEN visible THEN c.content ELSE null END, hidden: NOT visible,
      still_valid: change IS NULL, change: change,
      changed_at: CASE change
        WHEN 'retracted' THEN closed_at
        WHEN 'superseded' THEN coalesce(replaced_at, latest.system_from)
        WHEN 'invalidated' THEN latest.valid_to
        ELSE null END,
      // When the change was recorded (system time): what "changed since the trace" compares.
      recorded_at: CASE change
        WHEN 'retracted' THEN closed_at
        WHEN 'superseded' THEN coalesce(replaced_at, latest.system_from)
        WHEN 'invalidated' THEN latest.system_from
        ELSE null END
    } END) AS cites
  }
  WITH s, rejected_by, rejects, cites ORDER BY s.index
  RETURN collect(CASE WHEN s IS NULL THEN null ELSE {
    index: s.index, kind: s.kind, content: s.content, status: s.status,
    rejected_by: rejected_by, rejects: rejects, cites: cites
  } END) AS steps
}
// What it produced: the version it produced and, when the memory changed since (updated,
// challenged, closed in valid time, retracted), its latest version too, so that a reader sees
// how the produced memory stands now beside what the trace produced.
CALL (t) {
  OPTIONAL MATCH (t)-[:PRODUCED]->(produced:Memory)
  OPTIONAL MATCH (v:Memory {namespace: produced.namespace, memory_id: produced.memory_id})
  WITH produced, v ORDER BY v.version DESC
  WITH produced, collect(v)[0] AS latest
  UNWIND CASE WHEN produced IS NULL THEN []
              WHEN latest.uid = produced.uid THEN [produced]
              ELSE [produced, latest] END AS p
  WITH DISTINCT p ORDER BY p.version
  RETURN collect(p {.*, embedding: null,
    valid_from: CASE WHEN p.valid_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: p.valid_from, timezone: 'Z'})) ELSE p.valid_from END,
    valid_to: CASE WHEN p.valid_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: p.valid_to, timezone: 'Z'})) ELSE p.valid_to END,
    system_from: CASE WHEN p.system_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: p.system_from, timezone: 'Z'})) ELSE p.system_from END,
    system_to: CASE WHEN p.system_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: p.system_to, timezone: 'Z'})) ELSE p.system_to END
  }) AS produced
}
RETURN t {.*, embedding: null, task_embedding: null,
          valid_from: CASE WHEN t.valid_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: t.valid_from, timezone: 'Z'})) ELSE t.valid_from END,
          valid_to: CASE WHEN t.valid_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: t.valid_to, timezone: 'Z'})) ELSE t.valid_to END,
          system_from: CASE WHEN t.system_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: t.system_from, timezone: 'Z'})) ELSE t.system_from END,
          system_to: CASE WHEN t.system_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: t.system_to, timezone: 'Z'})) ELSE t.system_to END
       } AS trace, coalesce(t.task_text, task.content) AS task, steps, produced
