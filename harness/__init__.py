"""End-to-end harness for the fukuemon playground's AI operations (WebMCP, MCP-B polyfill and relay)."""
