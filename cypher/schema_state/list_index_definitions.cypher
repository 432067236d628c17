// List every index's definition (type, labels, properties in order, options) to compare with the schema files.
// mode: read
// returns: many
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
RETURN name AS name, type AS type, labelsOrTypes AS labels, properties AS properties,
       options.indexConfig AS config
