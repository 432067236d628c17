// One :Task per namespace and normalised task text (`key`): concurrent traces for one task share it.
// mode: schema
// returns: none
CREATE CONSTRAINT task_key IF NOT EXISTS FOR (t:Task) REQUIRE (t.namespace, t.key) IS UNIQUE
