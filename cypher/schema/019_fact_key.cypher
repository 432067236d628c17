// One lock node per fact key, so concurrent writes of one key serialise on it.
// mode: schema
// returns: none
CREATE CONSTRAINT fact_key IF NOT EXISTS FOR (k:FactKey) REQUIRE (k.namespace, k.subject, k.attribute) IS UNIQUE
