//! Properties of the content-stream text decoder `toolgate::pdf::text::page_text`
//! (proptest; regressions persisted under `proptest-regressions/pdf_text_props.txt`).
//!
//! Totality: whatever the operators, operands or raw bytes of a page's content
//! stream, `page_text` returns (no panic), its text stays within
//! `TextLimits::max_chars`, and an operation bound is honoured with `truncated`.
//! The page is set up with the awkward resources the interpreter follows: a
//! simple font with `/Differences`, a Type0 Identity-H font with a ToUnicode
//! CMap, a Type3 font, a missing font name, a Form XObject that draws itself
//! (cycle) and one that nests another.
#![cfg(feature = "pdf")]

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, ObjectId, Stream, StringFormat};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use toolgate::pdf::text::{page_text, TextLimits};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/pdf_text_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// A one-page document whose content stream is `content`.
fn doc_with(content: Vec<u8>) -> (Document, ObjectId) {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let simple = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
        "Encoding" => dictionary! {
            "BaseEncoding" => "WinAnsiEncoding",
            "Differences" => vec![Object::Integer(65), "fi".into(), "uni0041".into(), "g12".into(), Object::Integer(-5), "x".into()],
        },
    });
    let cmap = b"/CIDInit /ProcSet findresource begin 1 begincodespacerange <0000> <FFFF> endcodespacerange
        2 beginbfchar <0001> <0041> <0002> <D83D> endbfchar
        2 beginbfrange <0010> <FFFF> <0061> <0020> <0022> [<0041> <00> <FFFFFFFF>] endbfrange endcmap";
    let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.to_vec()));
    let descendant = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "X",
        "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"), "Ordering" => Object::string_literal("Japan1"), "Supplement" => 0 },
        "W" => vec![Object::Integer(1), Object::Array(vec![500.into(), 600.into()]), 10.into(), 4_000_000_000i64.into(), 250.into()],
    });
    let type0 = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "X", "Encoding" => "Identity-H",
        "DescendantFonts" => vec![descendant.into()], "ToUnicode" => to_unicode,
    });
    let type3 = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type3", "FontMatrix" => vec![0.into(), 0.into(), 0.into(), 0.into(), 0.into(), 0.into()],
        "FirstChar" => 97, "Widths" => vec![1000.into()],
        "Encoding" => dictionary! { "Differences" => vec![97.into(), "square".into()] },
    });
    let self_form = doc.new_object_id();
    let inner_form = doc.add_object(Stream::new(
        dictionary! { "Type" => "XObject", "Subtype" => "Form", "Resources" => dictionary! {
            "Font" => dictionary! { "F1" => simple },
            "XObject" => dictionary! { "Self" => self_form },
        }},
        b"BT /F1 12 Tf (inner) Tj ET /Self Do".to_vec(),
    ));
    doc.objects.insert(
        self_form,
        Object::Stream(Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Form",
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 5.into(), 5.into()],
            "Resources" => dictionary! {
                "Font" => dictionary! { "F1" => simple },
                "XObject" => dictionary! { "Self" => self_form, "Inner" => inner_form },
            }},
            b"BT /F1 10 Tf (self) Tj ET /Self Do /Inner Do".to_vec(),
        )),
    );
    let resources = dictionary! {
        "Font" => dictionary! { "F1" => simple, "F2" => type0, "F3" => type3, "Bad" => 7 },
        "XObject" => dictionary! { "Fm" => self_form, "In" => inner_form },
    };
    let content_id = doc.add_object(Stream::new(dictionary! {}, content));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        "Resources" => resources, "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    (doc, page)
}

const OPERATORS: &[&str] = &[
    "BT", "ET", "Tf", "Tj", "TJ", "'", "\"", "Td", "TD", "Tm", "T*", "Tc", "Tw", "Tz", "TL", "Ts",
    "Tr", "q", "Q", "cm", "Do", "BI", "re", "n", "gs", "d0", "d1", "BX", "EX", "BMC", "BDC", "EMC",
    "xyz",
];

fn operand() -> impl Strategy<Value = Object> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(Object::Integer),
        any::<f32>().prop_map(Object::Real),
        prop_oneof![
            Just(0.0f32),
            Just(1.0),
            Just(-1.0),
            Just(12.0),
            Just(1e30),
            Just(f32::NAN)
        ]
        .prop_map(Object::Real),
        prop::collection::vec(any::<u8>(), 0..24)
            .prop_map(|b| Object::String(b, StringFormat::Literal)),
        prop::sample::select(vec!["F1", "F2", "F3", "Bad", "Missing", "Fm", "In"])
            .prop_map(|n| Object::Name(n.as_bytes().to_vec())),
        Just(Object::Null),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(|b| Object::Dictionary(
            dictionary! { "ActualText" => Object::String(b, StringFormat::Hexadecimal) }
        )),
        any::<bool>().prop_map(Object::Boolean),
    ];
    leaf.prop_recursive(2, 16, 8, |inner| {
        prop::collection::vec(inner, 0..8).prop_map(Object::Array)
    })
}

fn operation() -> impl Strategy<Value = Operation> {
    (
        prop::sample::select(OPERATORS),
        prop::collection::vec(operand(), 0..7),
    )
        .prop_map(|(op, operands)| Operation::new(op, operands))
}

fn check(content: Vec<u8>, limits: &TextLimits) {
    let (doc, page) = doc_with(content);
    let out = page_text(&doc, page, limits);
    assert!(
        out.text.len() <= limits.max_chars,
        "text of {} bytes over the {} bound",
        out.text.len(),
        limits.max_chars
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn total_on_operator_sequences(ops in prop::collection::vec(operation(), 0..64)) {
        let bytes = Content { operations: ops }.encode().unwrap_or_default();
        check(bytes, &TextLimits::default());
    }

    #[test]
    fn total_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(bytes, &TextLimits::default());
    }

    #[test]
    fn total_under_tight_limits(
        ops in prop::collection::vec(operation(), 0..64),
        max_chars in 0usize..40,
        max_operations in 0usize..20,
        max_form_depth in 0usize..3,
    ) {
        let bytes = Content { operations: ops }.encode().unwrap_or_default();
        let limits = TextLimits { max_chars, max_operations, max_form_depth, ..TextLimits::default() };
        check(bytes, &limits);
    }
}

#[test]
fn operation_bound_sets_truncated() {
    let ops = "BT /F1 10 Tf (a) Tj ET ".repeat(100);
    let (doc, page) = doc_with(ops.into_bytes());
    let limits = TextLimits {
        max_operations: 10,
        ..TextLimits::default()
    };
    let out = page_text(&doc, page, &limits);
    assert!(out.truncated);
    assert!(!out.warnings.is_empty());
}

#[test]
fn form_cycle_is_cut_with_a_warning() {
    let (doc, page) = doc_with(b"/Fm Do".to_vec());
    let out = page_text(&doc, page, &TextLimits::default());
    assert!(out.text.contains("self"), "{out:?}");
    assert!(out.text.contains("inner"), "{out:?}");
    assert!(out.warnings.iter().any(|w| w.contains("cycle")), "{out:?}");
}

#[test]
fn bad_font_keeps_going() {
    let (doc, page) = doc_with(b"BT /Bad 10 Tf (xx) Tj /F1 10 Tf 100 0 Td (Hello) Tj ET".to_vec());
    let out = page_text(&doc, page, &TextLimits::default());
    assert!(out.text.contains("Hello"), "{out:?}");
    assert!(!out.warnings.is_empty());
}

#[test]
fn tounicode_and_spacing() {
    let (doc, page) = doc_with(
        b"BT /F2 12 Tf 72 700 Td [<00010011> -800 <0012>] TJ 0 -20 Td /F1 12 Tf (Next line) Tj ET"
            .to_vec(),
    );
    let out = page_text(&doc, page, &TextLimits::default());
    assert_eq!(out.text, "Ab c\nNext line\n", "{out:?}");
}
