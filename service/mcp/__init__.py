"""The MCP server: one set of tools over two transports (streamable HTTP in the service, stdio proxy).

Light on purpose: importing `service.mcp` (or `tools`, `rest`, `stdio`) never imports torch, the
Neo4j driver or the domain; only `service.mcp.local` and `service.mcp.http` do, inside the service.
"""
