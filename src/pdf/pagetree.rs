//! Our own bounded walk of the page tree (ISO 32000-1 §7.7.3). `/Count` is
//! never used to find or allocate pages: pages are found by visiting the
//! leaves, each node at most once, under a depth cap, a node cap and a leaf
//! cap. The count the document *declares* ([`declared_pages`]) is only
//! compared with what was found: see [`PageTree::count`].

use std::collections::HashSet;

use lopdf::{Document, Object, ObjectId};

use super::error::PdfError;
use super::limits::{Limit, Limits};
use super::load::catalog;
use super::object::resolve;

/// The pages found, in document order, and what was skipped on the way.
#[derive(Debug, Default, Clone)]
pub struct PageTree {
    /// Page objects, in order; page `n` (1-based) is `pages[n - 1]`.
    pub pages: Vec<ObjectId>,
    /// `/Kids` entries skipped because they pointed at a node already
    /// visited (a loop, or a page listed twice; poppler skips them too).
    pub repeated: usize,
    /// `/Kids` entries skipped because they were not usable page-tree nodes.
    pub invalid: usize,
    /// Why the page tree was unusable when the pages were found instead by
    /// scanning every object for `/Type /Page` (see `scan_pages`).
    pub scanned: Option<String>,
    /// The page count the document declares, when plausible (set by the
    /// caller from [`declared_pages`]; `None` from the walk itself).
    pub declared: Option<usize>,
}

impl PageTree {
    /// The page count reported: the pages found by the walk, or the declared
    /// count when it is plausible and larger. Viewers number pages by the
    /// declared count, so a page lost to damage (a corrupted `/Kids` entry,
    /// an unreadable page object) does not renumber the pages after it in the
    /// user's eyes; the missing pages are reported empty, with a warning. A
    /// declared count smaller than what was found is ignored (the pages are
    /// there to read).
    pub fn count(&self) -> usize {
        self.pages.len().max(self.declared.unwrap_or(0))
    }
}

/// The pages of `doc`: the bounded page-tree walk, or, when the tree is
/// missing or broken and reaches no page, a scan of all objects for page
/// dictionaries in object-number order (what poppler does when it
/// reconstructs a damaged file), recorded in [`PageTree::scanned`].
///
/// # Errors
/// As [`walk_tree`] when the scan finds no page either.
pub fn walk(doc: &Document, limits: &Limits) -> Result<PageTree, PdfError> {
    let why = match walk_tree(doc, limits) {
        Ok(tree) if !tree.pages.is_empty() || tree.invalid == 0 => return Ok(tree),
        Ok(tree) => {
            let reason = format!(
                "the page tree reaches no page ({} unusable /Kids entries)",
                tree.invalid
            );
            return Ok(scan_pages(doc, limits, reason)?.unwrap_or(tree));
        }
        Err(
            e @ (PdfError::MalformedStructure { .. }
            | PdfError::ReferenceCycle { .. }
            | PdfError::PageTreeCycle { .. }),
        ) => e,
        Err(e) => return Err(e),
    };
    match scan_pages(doc, limits, why.to_string())? {
        Some(tree) => Ok(tree),
        None => Err(why),
    }
}

/// Every dictionary typed `/Type /Page`, in object-number order; `None`
/// when there is none.
///
/// # Errors
/// `limit_exceeded` (`pages`) past `limits.max_pages` pages.
fn scan_pages(
    doc: &Document,
    limits: &Limits,
    reason: String,
) -> Result<Option<PageTree>, PdfError> {
    let mut pages = Vec::new();
    for (id, obj) in &doc.objects {
        let dict = match obj {
            Object::Dictionary(d) => d,
            _ => continue,
        };
        if is_leaf(dict) {
            if pages.len() >= limits.max_pages {
                return Err(PdfError::limit(Limit::Pages, limits.max_pages));
            }
            pages.push(*id);
        }
    }
    Ok((!pages.is_empty()).then(|| PageTree {
        pages,
        scanned: Some(reason),
        ..PageTree::default()
    }))
}

/// Walks the page tree from the catalog's `/Pages`.
///
/// # Errors
/// `malformed_structure` without a catalog or `/Pages`; `page_tree_cycle`
/// when loops leave no page at all; `nesting_too_deep` (`page_tree_depth`);
/// `limit_exceeded` (`page_tree_nodes`, `pages`).
pub fn walk_tree(doc: &Document, limits: &Limits) -> Result<PageTree, PdfError> {
    let root = catalog(doc)?
        .get(b"Pages")
        .map_err(|_| PdfError::structure("the catalog has no /Pages"))?;
    let mut tree = PageTree::default();
    // Every node queued or visited; a node is walked at most once, so the
    // stack never holds more than `max_page_tree_nodes` entries.
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut first_repeat: Option<u32> = None;
    if let Object::Reference(id) = root {
        seen.insert(*id);
    }
    // Stack of (node, depth); children pushed in reverse to pop in order.
    let mut stack: Vec<(&Object, usize)> = vec![(root, 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth > limits.max_page_tree_depth {
            return Err(PdfError::NestingTooDeep {
                limit: Limit::PageTreeDepth,
                max: u64::try_from(limits.max_page_tree_depth).unwrap_or(u64::MAX),
            });
        }
        let id = match node {
            Object::Reference(id) => Some(*id),
            _ => None,
        };
        let dict = match resolve(doc, node).and_then(|o| {
            o.as_dict()
                .map_err(|_| PdfError::structure("page tree node is not a dictionary"))
        }) {
            Ok(d) => d,
            // The root must be usable; a bad kid is skipped.
            Err(e) if depth == 0 => return Err(e),
            Err(_) => {
                tree.invalid += 1;
                continue;
            }
        };
        let kids = dict.get(b"Kids").ok().map(|k| resolve(doc, k));
        let is_pages =
            dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"Pages".as_slice());
        match kids {
            Some(Ok(Object::Array(kids))) if !is_leaf(dict) => {
                let next = depth.saturating_add(1);
                let mut fresh = Vec::new();
                for kid in kids {
                    if let Object::Reference(kid_id) = kid {
                        if !seen.insert(*kid_id) {
                            tree.repeated += 1;
                            first_repeat.get_or_insert(kid_id.0);
                            continue;
                        }
                        if seen.len() > limits.max_page_tree_nodes {
                            return Err(PdfError::limit(
                                Limit::PageTreeNodes,
                                limits.max_page_tree_nodes,
                            ));
                        }
                    }
                    fresh.push((kid, next));
                }
                stack.extend(fresh.into_iter().rev());
            }
            _ if is_pages => tree.invalid += 1,
            _ => match id {
                Some(id) => {
                    if tree.pages.len() >= limits.max_pages {
                        return Err(PdfError::limit(Limit::Pages, limits.max_pages));
                    }
                    tree.pages.push(id);
                }
                // A page must be an indirect object (§7.7.3.3).
                None => tree.invalid += 1,
            },
        }
    }
    if tree.pages.is_empty() {
        if let Some(object) = first_repeat {
            return Err(PdfError::PageTreeCycle { object });
        }
    }
    Ok(tree)
}

/// The page count the document declares, when it is plausible: the
/// linearization dictionary's `/N` (`linearized_n`, see
/// [`super::load::Loaded::linearized_pages`]), else the page-tree root's
/// `/Count` (an integer, or a real as some writers put it). Plausible means at
/// least 1, at most one page per object of the file (poppler's bound: a page
/// is an object) and at most `limits.max_pages`; anything else is `None`.
/// This is the count poppler (`pdfinfo`), MuPDF and Acrobat report.
pub fn declared_pages(doc: &Document, linearized_n: Option<u64>, limits: &Limits) -> Option<usize> {
    let objects = usize::try_from(doc.reference_table.size.max(doc.max_id.saturating_add(1)))
        .unwrap_or(usize::MAX);
    let plausible = |n: usize| (n >= 1 && n <= objects && n <= limits.max_pages).then_some(n);
    if let Some(n) = linearized_n.and_then(|n| usize::try_from(n).ok()) {
        if let Some(n) = plausible(n) {
            return Some(n);
        }
    }
    let root = catalog(doc).ok()?.get(b"Pages").ok()?;
    let count = resolve(doc, root)
        .ok()?
        .as_dict()
        .ok()?
        .get(b"Count")
        .ok()?;
    let n = match resolve(doc, count).ok()? {
        Object::Integer(i) => usize::try_from(*i).ok()?,
        // Truncated toward zero, as poppler does; NaN and negatives fail.
        Object::Real(r) if *r >= 1.0 && *r < 1e9 => format!("{}", r.trunc()).parse().ok()?,
        _ => return None,
    };
    plausible(n)
}

/// A node typed `/Page` is a leaf even if it carries a stray `/Kids`.
fn is_leaf(dict: &lopdf::Dictionary) -> bool {
    dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"Page".as_slice())
}
