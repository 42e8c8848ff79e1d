//! `toolgate::json` — see DESIGN.md. (stub: being written)
