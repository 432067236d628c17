// List every index with its state and population progress.
// mode: read
// returns: many
SHOW INDEXES YIELD name, type, state, populationPercent
RETURN name AS name, type AS type, state AS state, populationPercent AS population_percent
