// The memory versions behind ranked retrieval hits (for a read of current versions, a version closed meanwhile read back as its memory's last version found, or dropped when the memory was retracted or corrected), each with whether a lineage-visible trace PRODUCED any version of it and, for a trace, the memory ids it PRODUCED and whether any of them still holds; the four period bounds as UTC ISO-8601 text (parsed by datetime.fromisoformat: the driver's DateTime hydration in Python cost ~0.1 ms a value, most of this query's time).
// mode: read
// returns: many
// :param namespace => 'default'
// :param uids => ['uid-of-a-memory-version']
// :param lineage_origins => ['ingestion', 'maintenance', 'user']
// :param current_at => datetime()
UNWIND $uids AS uid
MATCH (found:Memory {namespace: $namespace, uid: uid})
// A read of current versions ($current_at: its as_of; null for a history read): a candidate
// closed since its index answered (an update committed meanwhile) is read back as its memory's
// last version found (the highest, through the memory_id index): an open one when it is still
// valid at $current_at; none when it was retracted or corrected (retracted_reason, set on the
// version closed with no successor); a closed one not retracted when the update that closed it
// has not yet made its successor visible (Neo4j applies a commit's store changes before its
// index changes: a reader may meet the close before the new version is in the memory_id
// index), as the version still current to this read. (Dropping the candidate when a later
// version was closed lost the memory from a recall racing two updates.)
OPTIONAL CALL (found) {
  WITH found WHERE $current_at IS NOT NULL AND found.system_to IS NOT NULL
  OPTIONAL MATCH (later:Memory {namespace: $namespace, memory_id: found.memory_id})
  WHERE later.version > found.version
  // Grouped by found: no row in (a history read, or an open version), no row out. (An
  // ungrouped collect() makes one row of nothing, read as "replaced, no successor": a history
  // read dropped every retracted version.)
  WITH found, later ORDER BY later.version DESC
  WITH found, collect(later)[0] AS latest
  RETURN coalesce(latest, found) AS last
}
WITH uid, CASE
       WHEN last IS NULL THEN found
       WHEN last.retracted_reason IS NULL
            AND last.valid_from <= $current_at
            AND (last.valid_to IS NULL OR last.valid_to > $current_at) THEN last
     END AS m
WHERE m IS NOT NULL
CALL (m) {
  OPTIONAL MATCH (t:ReasoningTrace)-[:PRODUCED]->(:Memory {namespace: $namespace, memory_id: m.memory_id})
  WHERE t.namespace = $namespace AND t.created_by_origin IN $lineage_origins
  RETURN count(t) > 0 AS has_reasoning
}
CALL (m) {
  OPTIONAL MATCH (m:ReasoningTrace)-[:PRODUCED]->(p:Memory {namespace: $namespace})
  RETURN collect(DISTINCT p.memory_id) AS produced
}
// For a trace in a read of current versions: whether what it produced still holds at
// $current_at (some produced memory has a current version valid then); false when all of it
// was superseded, invalidated, retracted or corrected; null when it produced nothing.
OPTIONAL CALL (produced) {
  WITH produced WHERE $current_at IS NOT NULL AND size(produced) > 0
  UNWIND produced AS produced_id
  OPTIONAL MATCH (q:Memory {namespace: $namespace, memory_id: produced_id})
  WHERE q.system_to IS NULL AND q.valid_from <= $current_at
    AND (q.valid_to IS NULL OR q.valid_to > $current_at)
  // Grouped by produced: no row in, no row out (an ungrouped count makes a row of 0).
  WITH produced, count(q) > 0 AS in_force
  RETURN in_force
}
RETURN m {.*, embedding: null, task_embedding: null, search_ns: null,
          valid_from: CASE WHEN m.valid_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.valid_from, timezone: 'Z'})) ELSE m.valid_from END,
          valid_to: CASE WHEN m.valid_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.valid_to, timezone: 'Z'})) ELSE m.valid_to END,
          system_from: CASE WHEN m.system_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.system_from, timezone: 'Z'})) ELSE m.system_from END,
          system_to: CASE WHEN m.system_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.system_to, timezone: 'Z'})) ELSE m.system_to END
       } AS memory, has_reasoning, produced, in_force, uid AS candidate
