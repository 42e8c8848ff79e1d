#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::net_structured::classify_url_structured(data));
