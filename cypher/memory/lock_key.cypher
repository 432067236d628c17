// Take a write lock on a fact key so concurrent writers of one key serialise.
// mode: write
// returns: one
// :param namespace => 'default'
// :param subject => 'alice'
// :param attribute => 'home_district'
// :param now => datetime()
MERGE (k:FactKey {namespace: $namespace, subject: $subject, attribute: $attribute})
ON CREATE SET k.uid = randomUUID(), k.system_from = $now, k.valid_from = $now
SET k.locked_at = $now
RETURN k.uid AS uid
