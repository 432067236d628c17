// Range index to find a memory's neighbours in the material it came from: (namespace, episode, position).
// mode: schema
// returns: none
CREATE INDEX memory_episode IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.episode, m.position)
