#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::http::http_head(data));
