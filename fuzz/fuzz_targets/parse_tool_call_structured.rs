#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::rpc_structured::parse_tool_call_structured(data));
