// Record the outcome of an ingest attempt on its source: status (complete once every unit was processed, else partial), failed and refused units.
// mode: write
// returns: one
// :param namespace => 'default'
// :param source_uid => 'uid-of-source'
// :param status => 'complete'
// :param unit_count => 1
// :param units_failed => []
// :param units_refused_json => []
// :param now => datetime()
MATCH (s:Source {namespace: $namespace, uid: $source_uid})
SET s.status = $status, s.unit_count = $unit_count, s.units_failed = $units_failed,
    s.units_refused_json = $units_refused_json, s.attempts = coalesce(s.attempts, 0) + 1,
    s.last_attempt_at = $now,
    s.completed_at = CASE WHEN $status = 'complete' THEN coalesce(s.completed_at, $now) ELSE s.completed_at END
RETURN s.uid AS uid
