// Merge the :Task nodes of one namespace and normalised text into one (the keyed one, else the oldest), moving every relationship, then key it.
// mode: write
// returns: optional
// :param namespace => 'default'
// :param key => 'why is ci red'
// :param uids => ['uid-of-an-unkeyed-task']
CYPHER 25
MATCH (t:Task {namespace: $namespace})
WHERE t.uid IN $uids OR t.key = $key
WITH t ORDER BY t.key IS NULL, t.system_from, t.uid
WITH collect(t) AS tasks
WHERE size(tasks) > 0
WITH head(tasks) AS keep, tail(tasks) AS extra
CALL (keep, extra) {
  UNWIND extra AS dup
  MATCH (a)-[r]->(dup)
  WHERE NOT a IN extra AND a <> keep
  CREATE (a)-[moved:$(type(r))]->(keep)
  SET moved = properties(r)
  RETURN count(moved) AS moved_in
}
CALL (keep, extra) {
  UNWIND extra AS dup
  MATCH (dup)-[r]->(b)
  WHERE NOT b IN extra AND b <> keep
  CREATE (keep)-[moved:$(type(r))]->(b)
  SET moved = properties(r)
  RETURN count(moved) AS moved_out
}
CALL (extra) {
  UNWIND extra AS dup
  DETACH DELETE dup
  RETURN count(*) AS deleted
}
SET keep.key = $key
RETURN moved_in + moved_out AS moved, deleted
