// One lock node per content stripe of a namespace, so concurrent equal unkeyed writes serialise on it (memory/lock_contents).
// mode: schema
// returns: none
CREATE CONSTRAINT content_lock IF NOT EXISTS FOR (l:ContentLock) REQUIRE (l.namespace, l.stripe) IS UNIQUE
