//! `toolgate::net` — see DESIGN.md. (stub: being written)
