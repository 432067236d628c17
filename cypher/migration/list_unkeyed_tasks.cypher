// The :Task nodes written before tasks had a normalised `key` (their key is computed by the caller).
// mode: read
// returns: many
// :param namespace => null
MATCH (t:Task)
WHERE t.key IS NULL AND t.content IS NOT NULL AND ($namespace IS NULL OR t.namespace = $namespace)
RETURN t.namespace AS namespace, t.uid AS uid, t.content AS content
ORDER BY namespace, uid
