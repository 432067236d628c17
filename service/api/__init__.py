"""HTTP layer: routes, dependencies, auth and the error table."""
