// Create a trace's steps with HAS_STEP {index} and chain them with NEXT in index order.
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param steps => [{uid: randomUUID(), namespace: 'default', index: 0, kind: 'thought', content: 'maybe the cache', status: 'hypothesis', valid_from: datetime(), system_from: datetime()}]
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
UNWIND $steps AS props
CREATE (s:ReasoningStep)
SET s = props
CREATE (t)-[:HAS_STEP {index: props.index}]->(s)
WITH t, s ORDER BY s.index
WITH t, collect(s) AS steps
CALL (steps) {
  UNWIND range(0, size(steps) - 2) AS i
  WITH steps[i] AS a, steps[i + 1] AS b
  CREATE (a)-[:NEXT]->(b)
}
RETURN size(steps) AS created
