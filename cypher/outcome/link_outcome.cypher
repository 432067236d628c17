// Link the decision version current at write time to the observation of what happened when it was acted on.
// mode: write
// returns: one
// :param namespace => 'default'
// :param decision_uid => 'uid-of-the-decision-version'
// :param observation_uid => 'uid-of-the-observation'
// :param result => 'failure'
// :param now => datetime()
// :param origin => 'user'
// :param actor => 'agent:ci-triage'
MATCH (d:Decision {namespace: $namespace, uid: $decision_uid})
MATCH (o:Observation {namespace: $namespace, uid: $observation_uid})
CREATE (d)-[h:HAD_OUTCOME {result: $result, at: $now, origin: $origin, actor: $actor}]->(o)
RETURN h.result AS result, h.at AS recorded_at
