"""Two or more service processes on one Neo4j: replicas, leases, kills."""
