//! `toolgate::mcp` — see DESIGN.md. (stub: being written)
