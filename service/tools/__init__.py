"""Developer tooling on top of the domain (quality-gate calibration), never used by the API."""
