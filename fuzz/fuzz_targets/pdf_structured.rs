#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolgate::harness::pdf_structured::pdf_structured(data));
