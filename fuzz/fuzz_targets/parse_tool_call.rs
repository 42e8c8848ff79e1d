#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::rpc::parse_tool_call(data));
