// Create a reasoning trace node and link it to the task it served (one :Task per namespace and normalised text, unique); its lexical field leads with the task, so a trace is found by its task as well as by its steps.
// mode: write
// returns: one
// :param namespace => 'default'
// :param props => {uid: randomUUID(), namespace: 'default', memory_id: randomUUID(), version: 1, kind: 'reasoning', content: 'task and steps', task_text: 'why is CI red', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'browser', last_modified_by_origin: 'user', last_modified_by_actor: 'browser'}
// :param task => 'why is CI red'
// :param task_key => 'why is ci red'
// :param now => datetime()
CREATE (t:Memory:ReasoningTrace)
SET t = $props
SET t.current = t.system_to IS NULL
SET t.search_context = coalesce(t.search_context, t.task_text)
SET t.search_text = CASE WHEN t.search_context IS NULL THEN t.content
                         ELSE t.search_context + '\n' + t.content END + coalesce('\n' + t.search_parts, '')
MERGE (task:Task {namespace: $namespace, key: $task_key})
ON CREATE SET task.uid = randomUUID(), task.content = $task, task.valid_from = $now, task.system_from = $now
CREATE (t)-[:SERVED]->(task)
RETURN t.uid AS uid, t.memory_id AS memory_id
