// The current versions of every value of a fact key (subject + attribute), whatever their valid time.
// mode: read
// returns: many
// :param namespace => 'default'
// :param subject => 'alice'
// :param attribute => 'home_district'
MATCH (m:Memory:Fact {namespace: $namespace, subject: $subject, attribute: $attribute})
WHERE m.system_to IS NULL
RETURN m {.*, embedding: null} AS memory
ORDER BY m.valid_from DESC
