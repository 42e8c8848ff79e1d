#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::json::depth_of(data));
