// The current trace equal to a new one, if any: the same namespace, creating origin, normalised content (task, steps, conclusion) and trace_digest (steps' kinds, statuses, cites and rejections, and the memory it produced), still valid now (an invalidated trace is not this one), so that recording the same reasoning again (a retry, the same material ingested again under another name) writes nothing.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param content_norm => 'task: why does test_upload fail'
// :param origin => 'user'
// :param digest => 'f3a9'
// :param now => datetime()
MATCH (t:Memory {namespace: $namespace, content_norm: $content_norm})
WHERE t:ReasoningTrace AND t.system_to IS NULL AND t.created_by_origin = $origin AND t.trace_digest = $digest
  AND (t.valid_to IS NULL OR t.valid_to > $now)
RETURN t.memory_id AS memory_id, t.uid AS uid
ORDER BY t.system_from
LIMIT 1
