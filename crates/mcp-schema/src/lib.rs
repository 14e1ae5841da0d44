//! Typed MCP messages (work in progress).
