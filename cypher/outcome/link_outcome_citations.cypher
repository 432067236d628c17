// The observation of an outcome CITES the exact version (uid) of each memory given as evidence of it.
// mode: write
// returns: one
// :param namespace => 'default'
// :param observation_uid => 'uid-of-the-observation'
// :param cite_uids => ['uid-of-a-memory-version']
MATCH (o:Observation {namespace: $namespace, uid: $observation_uid})
CALL (o) {
  UNWIND $cite_uids AS uid
  MATCH (m:Memory {namespace: $namespace, uid: uid})
  MERGE (o)-[:CITES]->(m)
  RETURN count(m) AS linked
}
RETURN linked
