#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::gate_codecs::gate_codecs(data));
