//! Layout regressions of `toolgate::pdf::text::page_text`, one per kind of
//! fault found by sweeping generated and real PDFs against poppler's
//! `pdftotext`: each test is a small synthetic page whose expected text is
//! what pdftotext prints for the same drawing.
#![cfg(feature = "pdf")]

use lopdf::{dictionary, Document, Object, ObjectId, Stream};
use toolgate::pdf::text::{page_text, TextLimits};

/// A one-page document: `/F1` is Helvetica (standard-14 widths); `extra`
/// is merged into the page dictionary (boxes, rotation).
fn page(content: &[u8], extra: lopdf::Dictionary) -> (Document, ObjectId) {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let helvetica = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
    let mut dict = dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => helvetica } },
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    };
    for (k, v) in extra {
        dict.set(k, v);
    }
    let page = doc.add_object(dict);
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    (doc, page)
}

fn text(content: &[u8], extra: lopdf::Dictionary) -> String {
    let (doc, id) = page(content, extra);
    page_text(&doc, id, &TextLimits::default()).text
}

#[test]
fn letter_spaced_words_stay_whole() {
    // Tc 1.5 and 3 at 10 pt: letters 0.15-0.3 em apart, spaces wider still.
    for tc in ["1.5", "3"] {
        let content = format!("BT /F1 10 Tf {tc} Tc 72 700 Td (Spaced out words) Tj ET");
        assert_eq!(
            text(content.as_bytes(), dictionary! {}),
            "Spaced out words\n",
            "Tc {tc}"
        );
    }
}

#[test]
fn glyphs_placed_one_by_one_with_gaps_join() {
    // Each letter its own Tj 0.2 em after the previous one's end; the word gap is 0.8 em.
    let mut content = String::from("BT /F1 10 Tf ");
    let mut x = 72.0;
    for c in "ab cd".chars() {
        if c == ' ' {
            x += 6.0;
            continue;
        }
        content.push_str(&format!("1 0 0 1 {x} 700 Tm ({c}) Tj "));
        x += 5.56 + 2.0;
    }
    content.push_str("ET");
    assert_eq!(text(content.as_bytes(), dictionary! {}), "ab cd\n");
}

#[test]
fn a_line_with_longer_words_keeps_the_normal_space_rule() {
    // One word of several letters on the line: single letters 0.15 em apart
    // stay separate words, as in pdftotext.
    let content = b"BT /F1 10 Tf 1 0 0 1 72 700 Tm (word) Tj 1 0 0 1 95.17 700 Tm (x) Tj \
                    1 0 0 1 101.67 700 Tm (y) Tj ET";
    assert_eq!(text(content, dictionary! {}), "word x y\n");
}

#[test]
fn text_outside_the_page_is_dropped() {
    let content = b"BT /F1 10 Tf 72 700 Td (Visible) Tj 0 200 Td (Above) Tj ET \
                    BT /F1 10 Tf -300 100 Td (Left) Tj ET BT /F1 10 Tf 700 100 Td (Right) Tj ET";
    assert_eq!(text(content, dictionary! {}), "Visible\n");
}

#[test]
fn crop_box_limits_the_page() {
    let content = b"BT /F1 10 Tf 72 700 Td (Kept) Tj 0 -600 Td (Cropped) Tj ET";
    let crop = dictionary! { "CropBox" => vec![0.into(), 200.into(), 612.into(), 792.into()] };
    assert_eq!(text(content, crop), "Kept\n");
}

#[test]
fn glyphs_straddling_the_page_edge_are_kept() {
    // "E" ends left of the page; "d" starts left of it and ends on it.
    let content = b"BT /F1 10 Tf -9 700 Td (Edge) Tj ET";
    assert_eq!(text(content, dictionary! {}), "dge\n");
}

#[test]
fn a_page_without_a_media_box_drops_nothing() {
    let (mut doc, id) = page(b"BT /F1 10 Tf 72 2000 Td (Far) Tj ET", dictionary! {});
    if let Ok(Object::Dictionary(d)) = doc.get_object_mut(id) {
        d.remove(b"MediaBox");
    }
    assert_eq!(page_text(&doc, id, &TextLimits::default()).text, "Far\n");
}

#[test]
fn cjk_collection_cids_without_tounicode_decode() {
    // A dvipdfmx-style vertical Japanese font: Identity-V, Adobe-Japan1, no
    // ToUnicode, no usable font program. Two columns, read right to left.
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let descendant = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType0", "BaseFont" => "Ryumin-Light",
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Japan1"), "Supplement" => 2,
        },
    });
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "Ryumin-Light",
        "Encoding" => "Identity-V", "DescendantFonts" => vec![descendant.into()],
    });
    let content = b"BT /F2 10 Tf 1 0 0 1 200 700 Tm <034b034d> Tj \
                    1 0 0 1 185 700 Tm <0cd40e8a07a0> Tj ET";
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F2" => font } },
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let out = page_text(&doc, page, &TextLimits::default());
    assert_eq!(
        out.text, "\u{3042}\u{3044}\n\u{65e5}\u{672c}\u{8a9e}\n",
        "{out:?}"
    );
}

/// Adds a one-page tree to `doc` for `page` (its `/Parent` is set here).
fn finish(doc: &mut Document, mut page: lopdf::Dictionary) -> ObjectId {
    let pages_id = doc.new_object_id();
    page.set("Parent", pages_id);
    let page = doc.add_object(page);
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    page
}

#[test]
fn type3_font_in_a_hundredth_grid_keeps_its_lines() {
    // FontMatrix 0.01: widths are in hundredths of text space. The font's
    // size on the page must not be taken as 10x the Tf size, or the two lines
    // (1.2 em apart) merge into one.
    let mut doc = Document::with_version("1.7");
    let glyph = doc.add_object(Stream::new(dictionary! {}, b"0 0 0 0 50 50 d1".to_vec()));
    let widths: Vec<Object> = (0..26).map(|i| Object::Integer(50 + i % 3 * 10)).collect();
    let names: Vec<Object> = std::iter::once(Object::Integer(97))
        .chain((b'a'..=b'z').map(|c| Object::Name(vec![c])))
        .collect();
    let procs: lopdf::Dictionary = (b'a'..=b'z')
        .map(|c| (vec![c], Object::Reference(glyph)))
        .collect();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type3",
        "FontBBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
        "FontMatrix" => vec![0.01.into(), 0.into(), 0.into(), 0.01.into(), 0.into(), 0.into()],
        "CharProcs" => procs, "Resources" => dictionary! {},
        "Encoding" => dictionary! { "Type" => "Encoding", "Differences" => names },
        "FirstChar" => 97, "LastChar" => 122, "Widths" => widths,
    });
    let content =
        b"BT /T3 10 Tf 72 700 Td 12 TL [(one) -300 (line)] TJ T* [(two) -300 (line)] TJ ET";
    let content = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
    let id = finish(
        &mut doc,
        dictionary! {
            "Type" => "Page", "Contents" => content,
            "Resources" => dictionary! { "Font" => dictionary! { "T3" => font } },
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        },
    );
    let out = page_text(&doc, id, &TextLimits::default());
    assert_eq!(out.text, "one line\ntwo line\n", "{out:?}");
}

#[test]
fn annotation_appearances_are_read_unless_hidden() {
    let mut doc = Document::with_version("1.7");
    let helvetica = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let mut annots = Vec::new();
    for (text, flags, y) in [("Shown field", 4, 600), ("Hidden field", 2, 500)] {
        let ap = format!("/Tx BMC BT /F1 10 Tf 2 5 Td ({text}) Tj ET EMC");
        // The appearance is drawn in a 2x grid and scaled onto /Rect.
        let form = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 456.into(), 40.into()],
                "Matrix" => vec![2.into(), 0.into(), 0.into(), 2.into(), 0.into(), 0.into()],
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => helvetica } },
            },
            ap.into_bytes(),
        ));
        annots.push(Object::Reference(doc.add_object(dictionary! {
            "Type" => "Annot", "Subtype" => "Widget", "F" => flags,
            "Rect" => vec![72.into(), y.into(), 300.into(), (y + 20).into()],
            "AP" => dictionary! { "N" => form },
        })));
    }
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F1 10 Tf 72 700 Td (Body) Tj ET".to_vec(),
    ));
    let id = finish(
        &mut doc,
        dictionary! {
            "Type" => "Page", "Contents" => content, "Annots" => annots,
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => helvetica } },
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        },
    );
    let out = page_text(&doc, id, &TextLimits::default());
    assert_eq!(out.text, "Body\nShown field\n", "{out:?}");
}

#[test]
fn columns_a_little_over_one_em_apart_read_one_after_the_other() {
    // Two columns, baselines 2 units apart, gutter 1.0-1.4 em: under the
    // single-line column gap, but the gutter runs down every line.
    let left = [
        "Lorem ipsum dolor sit",
        "amet, consectetuer ad",
        "ipiscing elit. Etiam",
        "lobortis facilisis se",
        "mper. Vestibulum eget",
    ];
    let right = [
        "Nulla facilisi. Donec",
        "ut lacus vitae metus",
        "tincidunt gravida. In",
        "hac habitasse platea",
        "dictumst. Maecenas ac",
    ];
    let mut content = String::from("BT /F1 10 Tf ");
    for (i, l) in left.iter().enumerate() {
        content.push_str(&format!("1 0 0 1 72 {} Tm ({l}) Tj ", 700 - 12 * i));
    }
    for (i, r) in right.iter().enumerate() {
        content.push_str(&format!("1 0 0 1 182 {} Tm ({r}) Tj ", 702 - 12 * i));
    }
    content.push_str("ET");
    let expected: String = left
        .iter()
        .chain(&right)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(text(content.as_bytes(), dictionary! {}), expected);
}

#[test]
fn one_wide_space_alone_does_not_split_a_line() {
    // A 1-em gap on one line only (no gutter): the line stays whole.
    let content =
        b"BT /F1 10 Tf 1 0 0 1 72 700 Tm (first line has) Tj 1 0 0 1 133.35 700 Tm (a gap) Tj \
                    1 0 0 1 72 688 Tm (second line has none at all) Tj ET";
    assert_eq!(
        text(content, dictionary! {}),
        "first line has a gap\nsecond line has none at all\n"
    );
}

#[test]
fn a_superscript_first_does_not_push_the_subscripts_off_the_line() {
    // X^2 first (superscript 3.5 above), then x_1 (subscript 1.5 below): one
    // line, as pdftotext reads it.
    let content = b"BT /F1 10 Tf 1 0 0 1 72 700 Tm (X) Tj /F1 7 Tf 1 0 0 1 78.7 703.5 Tm (2) Tj \
                    /F1 10 Tf 1 0 0 1 90 700 Tm (and x) Tj /F1 7 Tf 1 0 0 1 113.4 698.5 Tm (1) Tj ET";
    assert_eq!(text(content, dictionary! {}), "X2 and x1\n");
}

#[test]
fn spacing_accents_over_letters_become_combining_marks() {
    // TeX-style: the dieresis drawn before the "o" it sits on; the acute
    // drawn over the "i" after it. pdftotext: letter + combining mark.
    let content = b"BT /F1 10 Tf 1 0 0 1 72 700 Tm (Gr) Tj 1 0 0 1 84.225 700 Tm (\\250) Tj \
                    1 0 0 1 83.11 700 Tm (o\\337e) Tj 1 0 0 1 72 688 Tm (na) Tj \
                    1 0 0 1 83.12 688 Tm (\\264) Tj 1 0 0 1 83.12 688 Tm (ive) Tj ET";
    assert_eq!(
        text(content, dictionary! {}),
        "Gro\u{308}\u{df}e\nnai\u{301}ve\n"
    );
}

#[test]
fn actual_text_replaces_the_glyphs_it_covers() {
    // Inline property list, UTF-16 replacement of a ligature glyph, and a
    // named property list from /Properties.
    let content = b"BT /F1 10 Tf 72 700 Td /Span <</ActualText (replacement words)>> BDC \
                    (xyz qqq) Tj EMC ( after) Tj ET \
                    BT /F1 10 Tf 72 680 Td (the ) Tj /Span <</ActualText <FEFF006600660069>>> BDC \
                    (X) Tj EMC (ce) Tj ET \
                    BT /F1 10 Tf 72 660 Td /Span /P1 BDC (gone) Tj EMC (kept) Tj ET";
    let (mut doc, id) = page(content, dictionary! {});
    if let Ok(Object::Dictionary(d)) = doc.get_object_mut(id) {
        if let Ok(Object::Dictionary(res)) = d.get_mut(b"Resources") {
            res.set(
                "Properties",
                dictionary! { "P1" => dictionary! { "ActualText" => Object::string_literal("new ") } },
            );
        }
    }
    let out = page_text(&doc, id, &TextLimits::default());
    assert_eq!(
        out.text, "replacement words after\nthe ffice\nnew kept\n",
        "{out:?}"
    );
}

/// A page showing `content` with the font dictionary `font` as `/F1`.
fn with_font(doc: &mut Document, font: lopdf::Dictionary, content: &[u8]) -> ObjectId {
    let font = doc.add_object(font);
    let content = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
    finish(
        doc,
        dictionary! {
            "Type" => "Page", "Contents" => content,
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        },
    )
}

#[test]
fn unembedded_identity_ordering_reads_cids_as_unicode() {
    let mut doc = Document::with_version("1.7");
    let descendant = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "Foo",
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Identity"), "Supplement" => 0,
        },
    });
    let font = dictionary! {
        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "Foo",
        "Encoding" => "Identity-H", "DescendantFonts" => vec![descendant.into()],
    };
    let id = with_font(
        &mut doc,
        font,
        b"BT /F1 12 Tf 72 700 Td <00480065006C006C006F> Tj ET",
    );
    assert_eq!(page_text(&doc, id, &TextLimits::default()).text, "Hello\n");
}

#[test]
fn unembedded_truetype_without_encoding_passes_codes_through() {
    let mut doc = Document::with_version("1.7");
    let descriptor = doc.add_object(dictionary! {
        "Type" => "FontDescriptor", "FontName" => "Wingdings", "Flags" => 4,
        "FontBBox" => vec![0.into(), 0.into(), 1000.into(), 1000.into()],
    });
    let font = dictionary! {
        "Type" => "Font", "Subtype" => "TrueType", "BaseFont" => "Wingdings",
        "FontDescriptor" => descriptor,
    };
    let id = with_font(&mut doc, font, b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET");
    assert_eq!(page_text(&doc, id, &TextLimits::default()).text, "Hello\n");
}

#[test]
fn subscripts_stay_with_their_column_line_beside_a_heading() {
    // Left: a 10 pt heading; right: 9 pt text 3.7 lower with 6 pt
    // subscripts 1.6 lower still. The subscripts belong to the right line
    // even though the shared line's baseline is the heading's.
    let content = b"BT /F1 10 Tf 1 0 0 1 54 700 Tm (Heading here) Tj \
                    /F1 9 Tf 1 0 0 1 320 696.3 Tm (loop: {i) Tj /F1 6 Tf 1 0 0 1 347.5 694.7 Tm (5) Tj \
                    /F1 9 Tf 1 0 0 1 352 696.3 Tm (, i) Tj /F1 6 Tf 1 0 0 1 361.5 694.7 Tm (7) Tj \
                    /F1 9 Tf 1 0 0 1 366 696.3 Tm (}) Tj ET";
    assert_eq!(
        text(content, dictionary! {}),
        "Heading here\nloop: {i 5 , i 7 }\n"
    );
}

#[test]
fn unknown_glyph_names_pass_the_code_through() {
    // `g42`, `cid65`, `a1`: no number is read out of the name (pdftotext
    // prints the code itself); AGL and `uniXXXX` names still decode.
    let mut doc = Document::with_version("1.7");
    let font = dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
        "Encoding" => dictionary! {
            "BaseEncoding" => "WinAnsiEncoding",
            "Differences" => vec![65.into(), "g42".into(), "cid66".into(), "a1".into(), "uni0158".into(), "Adieresis".into()],
        },
    };
    let id = with_font(&mut doc, font, b"BT /F1 12 Tf 72 700 Td (ABCDE) Tj ET");
    assert_eq!(
        page_text(&doc, id, &TextLimits::default()).text,
        "ABC\u{158}\u{c4}\n"
    );
}

#[test]
fn unembedded_truetype_without_base_encoding_reads_as_standard() {
    // No program to read, no /BaseEncoding: StandardEncoding, as pdftotext
    // (0x93 is nothing there, 0xE9 is Oslash, 0xAA quotedblleft).
    let mut doc = Document::with_version("1.7");
    let font = dictionary! {
        "Type" => "Font", "Subtype" => "TrueType", "BaseFont" => "Arial",
        "Encoding" => dictionary! { "Differences" => vec![65.into(), "B".into()] },
    };
    let id = with_font(
        &mut doc,
        font,
        b"BT /F1 12 Tf 72 700 Td (A \\223x\\224 caf\\351 \\252) Tj ET",
    );
    assert_eq!(
        page_text(&doc, id, &TextLimits::default()).text,
        "B x caf\u{d8} \u{201c}\n"
    );
}

#[test]
fn word_spacing_applies_to_one_byte_spaces_of_composite_fonts() {
    // 90ms-RKSJ-H has one-byte codes: its 0x20 takes Tw like a simple font's.
    let mut doc = Document::with_version("1.7");
    let descendant = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "MS-Mincho",
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Japan1"), "Supplement" => 2,
        },
        "DW" => 1000, "W" => vec![1.into(), vec![250.into()].into()],
    });
    let font = dictionary! {
        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "MS-Mincho",
        "Encoding" => "90ms-RKSJ-H", "DescendantFonts" => vec![descendant.into()],
    };
    let id = with_font(
        &mut doc,
        font,
        b"BT /F1 12 Tf 30 Tw 72 700 Td <93FA967B208CEA414243204445> Tj ET",
    );
    assert_eq!(
        page_text(&doc, id, &TextLimits::default()).text,
        "\u{65e5}\u{672c}\n\u{8a9e}ABC\nDE\n"
    );
}
