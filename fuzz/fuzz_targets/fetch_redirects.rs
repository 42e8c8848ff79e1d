#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::fetch::fetch_redirects(data));
