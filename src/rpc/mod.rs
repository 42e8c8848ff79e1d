//! `toolgate::rpc` — see DESIGN.md. (stub: being written)
