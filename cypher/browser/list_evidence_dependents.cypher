// What rests on a piece of evidence: steps citing any of its versions, their traces and what those produced.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'evidence-memory-id'
MATCH (e:Memory {namespace: $namespace, memory_id: $memory_id})<-[c:CITES]-(s:ReasoningStep)<-[h:HAS_STEP]-(t:ReasoningTrace)
OPTIONAL MATCH p = (t)-[:PRODUCED]->(:Memory)
RETURN e, c, s, h, t, p
