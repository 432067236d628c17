// Close the current version $version of a memory in system time and create its successor (episode, position and lexical context carried over); no row when a concurrent writer closed it first.
// mode: write
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
// :param version => 1
// :param label => 'Fact'
// :param now => datetime()
// :param props => {uid: randomUUID(), namespace: 'default', memory_id: 'some-memory-id', version: 2, kind: 'fact', content: 'changed', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'browser', last_modified_by_origin: 'user', last_modified_by_actor: 'browser'}
// :param reason => 'update'
// :param origin => 'user'
// :param actor => 'browser'
// Lock first, then check (as `memory/retract_memory`): a concurrent retract that closed $version
// commits before this lock is granted, and the check after it sees that close (`system_to` is
// read only after the lock, so Cypher has no value of it cached from before).
MATCH (old:Memory {namespace: $namespace, memory_id: $memory_id, version: $version})
SET old.write_lock = true
REMOVE old.write_lock
// A version that began after $now (a concurrent writer's, committed after this one read the
// clock) is not closed at $now, which would end it before it began: a conflict too.
WITH old
WHERE old.system_to IS NULL AND NOT coalesce(old.system_from > $now, false)
SET old.system_to = $now, old.current = false
CREATE (new:Memory:$($label))
SET new = $props
SET new.current = new.system_to IS NULL
SET new.embedding = coalesce(new.embedding, old.embedding)
SET new.episode = coalesce(new.episode, old.episode),
    new.position = coalesce(new.position, old.position),
    new.search_context = coalesce(new.search_context, old.search_context),
    new.search_ns = coalesce(new.search_ns, old.search_ns)
SET new.search_text = CASE WHEN new.search_context IS NULL THEN new.content
                           ELSE new.search_context + '\n' + new.content END + coalesce('\n' + new.search_parts, '')
CREATE (new)-[:SUPERSEDES {reason: $reason, origin: $origin, actor: $actor, at: $now}]->(old)
RETURN new {.*, embedding: null} AS memory
