// The previous turn of each new memory of a batch: the current memory at position - 1 of the same episode in one namespace (its lexical context, as memory/create_memory looks it up for one memory).
// mode: read
// returns: many
// :param namespace => 'default'
// :param keys => [{i: 0, episode: 'session-2024-05-08', position: 3}]
UNWIND $keys AS key
CALL (key) {
  OPTIONAL MATCH (prev:Memory {namespace: $namespace, episode: key.episode, position: key.position - 1})
  WHERE prev.current = true
  WITH prev ORDER BY prev.system_from DESC LIMIT 1
  RETURN prev.content AS previous
}
RETURN key.i AS i, previous
