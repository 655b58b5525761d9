//! What a page paints that no script can read, found in Chromium's own layout snapshot
//! (`DOMSnapshot.captureSnapshot`, which sees through closed shadow roots and lays out CSS
//! generated content): the boxes to cover for a screenshot that must not show a value.
//!
//! - A closed shadow root is covered whole, its host and everything laid out in it: what is
//!   inside (a field's value, a placeholder, a canvas, a frame) is closed to the masker's
//!   script, so it may show anything.
//! - Text CSS generates (`::before`/`::after`/`::marker` content: strings, `attr()`,
//!   counters) is read as laid out; the smallest element whose text, the generated part
//!   included, holds a hidden value is covered.
//!
//! Both in a frame: the frame's box in the page.

use std::collections::{HashMap, HashSet};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::dom_snapshot::{
    CaptureSnapshotParams, CaptureSnapshotReturns, DocumentSnapshot, RareIntegerData,
    RareStringData,
};

use super::MaskBoxes;

/// The computed styles asked of every laid-out node: those that paint copies of a node
/// beyond its box (see [`Doc::reach`]), in this order.
const COPYING: [&str; 3] = ["text-shadow", "filter", "-webkit-box-reflect"];

/// Why the snapshot cannot say where to cover: then no picture is written.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::browser) enum Unplaced {
    /// Chromium gave no snapshot (the page was between documents, or busy past the wait).
    NoSnapshot,
    /// Something to cover is in a document the snapshot does not place in the page.
    Frame,
}

/// The boxes, in CSS pixels of the viewport, that cover what the snapshot shows and no
/// script can read, for `hidden` (folded as the masker's script folds).
pub(in crate::browser) async fn boxes(
    page: &Page,
    hidden: &[String],
) -> Result<MaskBoxes, Unplaced> {
    let params = CaptureSnapshotParams::new(COPYING.iter().map(|p| p.to_string()).collect());
    let snapshot = tokio::time::timeout(std::time::Duration::from_secs(5), page.execute(params))
        .await
        .map_err(|_| Unplaced::NoSnapshot)?
        .map_err(|_| Unplaced::NoSnapshot)?;
    Ok(MaskBoxes {
        boxes: unreadable(&snapshot.result, hidden)?,
        dpr: 0.0,
    })
}

/// [`boxes`] over a snapshot already taken.
pub(in crate::browser) fn unreadable(
    snapshot: &CaptureSnapshotReturns,
    hidden: &[String],
) -> Result<Vec<[f64; 4]>, Unplaced> {
    let wanted: Vec<String> = hidden
        .iter()
        .map(|v| fold(v))
        .filter(|v| !v.trim().is_empty())
        .collect();
    if wanted.is_empty() || snapshot.documents.is_empty() {
        return Ok(Vec::new());
    }
    let docs: Vec<Doc> = snapshot
        .documents
        .iter()
        .map(|d| Doc::new(d, &snapshot.strings))
        .collect();
    // Where each frame's document sits: the frame element in its parent document.
    let mut embedder: HashMap<usize, (usize, usize)> = HashMap::new();
    for (d, doc) in docs.iter().enumerate() {
        for &(node, inner) in &doc.content_document {
            embedder.insert(inner, (d, node));
        }
    }
    let mut out = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let mut nodes: HashSet<usize> = doc.closed_shadow_nodes();
        nodes.extend(doc.holding_generated_text(&wanted));
        if nodes.is_empty() {
            continue;
        }
        if d == 0 {
            out.extend(nodes.iter().flat_map(|&n| doc.viewport_boxes(n)));
            continue;
        }
        // In a frame: the outermost frame's box in the page covers it.
        let (mut at_doc, mut at_node) = (d, usize::MAX);
        // A chain longer than the documents is no chain: unplaced, as a missing link is.
        for _ in 0..docs.len() {
            if at_doc == 0 {
                break;
            }
            let Some(&(parent, node)) = embedder.get(&at_doc) else {
                return Err(Unplaced::Frame);
            };
            (at_doc, at_node) = (parent, node);
        }
        if at_doc != 0 {
            return Err(Unplaced::Frame);
        }
        out.extend(docs[0].viewport_boxes(at_node));
    }
    Ok(out)
}

/// The masker script's folding: runs of white space as one space, lower case.
fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    if space {
        out.push(' ');
    }
    out
}

/// The sum of the lengths in a computed style, in px (a percentage as a part of `size`).
fn lengths(value: &str, size: f64) -> f64 {
    let mut sum = 0.0;
    for word in value.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')')) {
        let (number, scale) = if let Some(n) = word.strip_suffix("px") {
            (n, 1.0)
        } else if let Some(n) = word.strip_suffix('%') {
            (n, size / 100.0)
        } else {
            continue;
        };
        if let Ok(n) = number.parse::<f64>() {
            sum += n.abs() * scale;
        }
    }
    sum
}

/// One document of the snapshot, indexed by node for the questions asked of it; its texts
/// borrowed from the snapshot's string table.
struct Doc<'s> {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// `before`, `after`, `marker`…, for the nodes that are pseudo-elements.
    pseudo: Vec<Option<&'s str>>,
    /// The type of the shadow root each node is directly in (`open`, `closed`, `user-agent`).
    shadow: Vec<Option<&'s str>>,
    /// Frame element node -> the index of the document it shows.
    content_document: Vec<(usize, usize)>,
    /// Each node's laid-out boxes (document coordinates) and the text laid out in them.
    layout: Vec<Vec<(&'s [f64], &'s str)>>,
    /// Each laid-out node's [`COPYING`] styles (its first box's).
    styles: Vec<Option<[&'s str; 3]>>,
    scroll: (f64, f64),
}

impl<'s> Doc<'s> {
    fn new(doc: &'s DocumentSnapshot, strings: &'s [String]) -> Doc<'s> {
        let string = |i: i64| -> &'s str {
            usize::try_from(i)
                .ok()
                .and_then(|i| strings.get(i))
                .map_or("", String::as_str)
        };
        let parent: Vec<Option<usize>> = doc
            .nodes
            .parent_index
            .iter()
            .flatten()
            .map(|&p| usize::try_from(p).ok())
            .collect();
        let count = parent.len();
        let mut children = vec![Vec::new(); count];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p.filter(|&p| p < count) {
                children[p].push(i);
            }
        }
        let node = |i: i64| usize::try_from(i).ok().filter(|&i| i < count);
        let rare = |data: &'s Option<RareStringData>| {
            let mut out = vec![None; count];
            for (&i, v) in data.iter().flat_map(|r| r.index.iter().zip(&r.value)) {
                if let Some(i) = node(i) {
                    out[i] = Some(string(*v.inner()));
                }
            }
            out
        };
        let content_document = doc
            .nodes
            .content_document_index
            .iter()
            .flat_map(|r: &RareIntegerData| r.index.iter().zip(&r.value))
            .filter_map(|(&i, &d)| Some((node(i)?, usize::try_from(d).ok()?)))
            .collect();
        let mut layout = vec![Vec::new(); count];
        let mut styles = vec![None; count];
        let l = &doc.layout;
        for (j, &n) in l.node_index.iter().enumerate() {
            let Some(n) = node(n) else {
                continue;
            };
            let bounds = l.bounds.get(j).map_or(&[][..], |r| r.inner().as_slice());
            let text = l.text.get(j).map_or("", |t| string(*t.inner()));
            layout[n].push((bounds, text));
            if styles[n].is_none()
                && let Some(style) = l.styles.get(j)
                && let [a, b, c] = style.inner().as_slice()
            {
                styles[n] = Some([string(*a.inner()), string(*b.inner()), string(*c.inner())]);
            }
        }
        Doc {
            parent,
            children,
            pseudo: rare(&doc.nodes.pseudo_type),
            shadow: rare(&doc.nodes.shadow_root_type),
            content_document,
            layout,
            styles,
            scroll: (
                doc.scroll_offset_x.unwrap_or(0.0),
                doc.scroll_offset_y.unwrap_or(0.0),
            ),
        }
    }

    /// Every node in a closed shadow root, and each such root's host: all of it is covered.
    fn closed_shadow_nodes(&self) -> HashSet<usize> {
        let closed = |n: usize| self.shadow[n] == Some("closed");
        let mut out = HashSet::new();
        for node in (0..self.parent.len()).filter(|&n| closed(n)) {
            out.insert(node);
            // Its host: the first ancestor outside any closed root (a root nested in another
            // is covered by the outer one's host).
            let mut at = node;
            while let Some(p) = self.parent[at] {
                at = p;
                if !closed(p) {
                    out.insert(p);
                    break;
                }
            }
        }
        // Everything below them too (open roots and slotted text inside a closed one).
        let mut stack: Vec<usize> = out.iter().copied().collect();
        while let Some(n) = stack.pop() {
            for &c in &self.children[n] {
                if out.insert(c) {
                    stack.push(c);
                }
            }
        }
        out
    }

    /// Whether a node is a pseudo-element that lays out text.
    fn generates_text(&self, n: usize) -> bool {
        self.pseudo[n].is_some() && self.layout[n].iter().any(|(_, t)| !t.trim().is_empty())
    }

    /// The smallest elements whose laid-out text, generated text included, holds one of
    /// `wanted` where generated text is part of what holds it; with everything below them.
    fn holding_generated_text(&self, wanted: &[String]) -> HashSet<usize> {
        let mut out = HashSet::new();
        if !(0..self.parent.len()).any(|n| self.generates_text(n)) {
            return out;
        }
        let flat = Flat::of(self);
        for value in wanted {
            for (at, _) in flat.text.match_indices(value.as_str()) {
                let span = (at, at + value.len());
                if !flat.pieces_in(span).any(|n| self.generates_text(n)) {
                    continue;
                }
                let Some(holder) = flat.smallest_holding(self, span) else {
                    continue;
                };
                let mut stack = vec![holder];
                while let Some(n) = stack.pop() {
                    if out.insert(n) {
                        stack.extend(&self.children[n]);
                    }
                }
            }
        }
        out
    }

    /// The node's laid-out boxes in CSS pixels of the viewport, widened by how far copies of
    /// its paint may fall.
    fn viewport_boxes(&self, node: usize) -> Vec<[f64; 4]> {
        let (sx, sy) = self.scroll;
        let far = self.reach(node);
        self.layout[node]
            .iter()
            .filter_map(|(b, _)| match b {
                [x, y, w, h, ..] if *w > 0.0 && *h > 0.0 => {
                    Some([x - sx - far, y - sy - far, w + 2.0 * far, h + 2.0 * far])
                }
                _ => None,
            })
            .collect()
    }

    /// How far beyond its boxes copies of a node's paint may fall: a text-shadow (the nearest
    /// applies), and the drop-shadows and box reflections of it and of every node around it
    /// (a reflection is the whole box again, beside it). The masker's script reckons the same.
    fn reach(&self, node: usize) -> f64 {
        let (mut shadow, mut copies) = (0.0f64, 0.0);
        let mut at = Some(node);
        while let Some(n) = at {
            if let Some([text_shadow, filter, reflect]) = self.styles[n] {
                let size = match self.layout[n].first() {
                    Some(([_, _, w, h, ..], _)) => w.max(*h),
                    _ => 0.0,
                };
                shadow = shadow.max(lengths(text_shadow, size));
                copies += lengths(filter, size);
                if !reflect.is_empty() && reflect != "none" {
                    copies += size + lengths(reflect, size);
                }
            }
            at = self.parent[n];
        }
        shadow + copies
    }
}

/// A document's laid-out text in the order it reads (an element's `::marker` and `::before`,
/// its children, its `::after`), folded, with where each node's own text and each node's
/// whole subtree stand in it (byte ranges).
struct Flat {
    text: String,
    /// (start, end, node) of each node's own text, in order.
    pieces: Vec<(usize, usize, usize)>,
    /// Each node's subtree: [start, end) in `text`.
    spans: Vec<(usize, usize)>,
}

impl Flat {
    fn of(doc: &Doc) -> Flat {
        let count = doc.parent.len();
        let mut flat = Flat {
            text: String::new(),
            pieces: Vec::new(),
            spans: vec![(0, 0); count],
        };
        let roots = (0..count).filter(|&n| doc.parent[n].is_none());
        // Depth first, with an explicit stack of (node, whether its subtree is done).
        let mut stack: Vec<(usize, bool)> = roots.rev().map(|n| (n, false)).collect();
        let mut ordered: Vec<usize> = Vec::new();
        while let Some((n, done)) = stack.pop() {
            let at = flat.text.len();
            if done {
                flat.spans[n].1 = at;
                continue;
            }
            flat.spans[n] = (at, at);
            for (_, text) in &doc.layout[n] {
                flat.push(text);
            }
            if flat.text.len() > at {
                flat.pieces.push((at, flat.text.len(), n));
            }
            stack.push((n, true));
            let kids = &doc.children[n];
            let kind = |c: &&usize| doc.pseudo[**c];
            ordered.clear();
            ordered.extend(
                kids.iter()
                    .filter(|c| kind(c).is_some_and(|k| k != "after")),
            );
            ordered.extend(kids.iter().filter(|c| kind(c).is_none()));
            ordered.extend(kids.iter().filter(|c| kind(c) == Some("after")));
            stack.extend(ordered.iter().rev().map(|&c| (c, false)));
        }
        flat
    }

    /// Appends `s` folded, a run of white space across pieces kept as one space.
    fn push(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_whitespace() {
                if !self.text.ends_with(' ') {
                    self.text.push(' ');
                }
            } else {
                self.text.extend(c.to_lowercase());
            }
        }
    }

    /// The nodes whose own text overlaps `span`.
    fn pieces_in(&self, (start, end): (usize, usize)) -> impl Iterator<Item = usize> + '_ {
        let first = self.pieces.partition_point(|&(_, e, _)| e <= start);
        self.pieces[first..]
            .iter()
            .take_while(move |&&(s, _, _)| s < end)
            .map(|&(_, _, n)| n)
    }

    /// The deepest node whose subtree's text holds all of `span`.
    fn smallest_holding(&self, doc: &Doc, (start, end): (usize, usize)) -> Option<usize> {
        let mut at = self.pieces_in((start, end)).next();
        while let Some(n) = at {
            let (s, e) = self.spans[n];
            if s <= start && end <= e {
                return Some(n);
            }
            at = doc.parent[n];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use chromiumoxide::cdp::browser_protocol::dom_snapshot::{ArrayOfStrings, StringIndex};
    use serde_json::{Value, json};

    use super::*;

    /// One node of a test document: its parent, and what kind of node it is.
    #[derive(Clone, Copy, Default)]
    struct N {
        parent: i64,
        pseudo: Option<&'static str>,
        shadow: Option<&'static str>,
        frame: Option<i64>,
    }

    /// A document's root node.
    const ROOT: N = N {
        parent: -1,
        pseudo: None,
        shadow: None,
        frame: None,
    };

    fn child(parent: i64) -> N {
        N {
            parent,
            ..N::default()
        }
    }

    /// A `::before`/`::after`/`::marker` node of `parent`.
    fn pseudo(parent: i64, kind: &'static str) -> N {
        N {
            pseudo: Some(kind),
            ..child(parent)
        }
    }

    /// A shadow root (`"open"` or `"closed"`) under `parent`.
    fn shadow(parent: i64, kind: &'static str) -> N {
        N {
            shadow: Some(kind),
            ..child(parent)
        }
    }

    /// A frame element under `parent` whose content is document `doc`.
    fn frame_element(parent: i64, doc: i64) -> N {
        N {
            frame: Some(doc),
            ..child(parent)
        }
    }

    /// What [`unreadable`] covers in `snap`, in order, for a comparison that does not depend
    /// on the order the documents were walked in.
    fn sorted_boxes(snap: &CaptureSnapshotReturns) -> Vec<[f64; 4]> {
        let mut boxes = unreadable(snap, &hidden()).unwrap();
        boxes.sort_by(|a, b| a.partial_cmp(b).unwrap());
        boxes
    }

    /// A laid-out box of a test document: (node, [x, y, w, h], text).
    type Laid<'a> = (i64, [f64; 4], &'a str);

    /// A test document: its nodes, its layout and its scroll offset.
    type TestDoc<'a> = (&'a [N], &'a [Laid<'a>], (f64, f64));

    fn snapshot(docs: &[TestDoc]) -> CaptureSnapshotReturns {
        let mut strings: Vec<String> = vec![String::new()];
        let mut s = |t: &str| -> i64 {
            if let Some(i) = strings.iter().position(|x| x == t) {
                return i as i64;
            }
            strings.push(t.to_string());
            (strings.len() - 1) as i64
        };
        let rare = |pairs: Vec<(usize, i64)>| {
            json!({"index": pairs.iter().map(|p| p.0).collect::<Vec<_>>(),
                   "value": pairs.iter().map(|p| p.1).collect::<Vec<_>>()})
        };
        let documents: Vec<Value> = docs
            .iter()
            .map(|(nodes, layout, (sx, sy))| {
                let mut pseudo = Vec::new();
                let mut shadow = Vec::new();
                let mut frames = Vec::new();
                for (i, n) in nodes.iter().enumerate() {
                    if let Some(p) = n.pseudo {
                        pseudo.push((i, s(p)));
                    }
                    if let Some(k) = n.shadow {
                        shadow.push((i, s(k)));
                    }
                    if let Some(f) = n.frame {
                        frames.push((i, f));
                    }
                }
                let texts: Vec<i64> = layout.iter().map(|(_, _, t)| s(t)).collect();
                json!({
                    "documentURL": 0, "title": 0, "baseURL": 0, "contentLanguage": 0,
                    "encodingName": 0, "publicId": 0, "systemId": 0, "frameId": 0,
                    "nodes": {
                        "parentIndex": nodes.iter().map(|n| n.parent).collect::<Vec<_>>(),
                        "pseudoType": rare(pseudo),
                        "shadowRootType": rare(shadow),
                        "contentDocumentIndex": rare(frames),
                    },
                    "layout": {
                        "nodeIndex": layout.iter().map(|l| l.0).collect::<Vec<_>>(),
                        "styles": layout.iter().map(|_| Vec::<i64>::new()).collect::<Vec<_>>(),
                        "bounds": layout.iter().map(|l| l.1.to_vec()).collect::<Vec<_>>(),
                        "text": texts,
                        "stackingContexts": {"index": []},
                    },
                    "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []},
                    "scrollOffsetX": sx, "scrollOffsetY": sy,
                })
            })
            .collect();
        serde_json::from_value(json!({"documents": documents, "strings": strings}))
            .expect("a snapshot as Chromium sends it")
    }

    fn hidden() -> Vec<String> {
        vec!["WALRUS4826".to_string()]
    }

    const BODY: [f64; 4] = [0.0, 0.0, 800.0, 600.0];
    const ECHO: [f64; 4] = [20.0, 140.0, 1000.0, 110.0];

    #[test]
    fn generated_text_holding_a_value_with_the_text_beside_it_covers_the_smallest_element() {
        // <body><div id=echo>4826</div>…  with #echo::before { content: "walrus" }, and an
        // icon ::after elsewhere.
        let nodes = [
            ROOT,
            child(0), // body
            child(1), // div#echo
            pseudo(2, "before"),
            child(2), // its text
            child(1), // div.icon
            pseudo(5, "after"),
        ];
        let layout: &[Laid] = &[
            (1, BODY, ""),
            (2, ECHO, ""),
            (3, [20.0, 140.0, 300.0, 80.0], "WALrus"),
            (4, [320.0, 140.0, 200.0, 80.0], "4826"),
            (5, [20.0, 300.0, 20.0, 20.0], ""),
            (6, [20.0, 300.0, 20.0, 20.0], "★"),
        ];
        let snap = snapshot(&[(&nodes, layout, (0.0, 0.0))]);
        assert_eq!(
            sorted_boxes(&snap),
            vec![
                [20.0, 140.0, 300.0, 80.0],
                [20.0, 140.0, 1000.0, 110.0],
                [320.0, 140.0, 200.0, 80.0]
            ],
            "the div, its generated text and its own text; not the body, not the icon"
        );
        // Nothing hidden, or no generated text in the match: nothing to cover here.
        assert!(unreadable(&snap, &[]).unwrap().is_empty());
        assert!(unreadable(&snap, &["4826".into()]).unwrap().is_empty());
    }

    #[test]
    fn after_content_reads_after_the_elements_own_text() {
        // <div>WALRUS</div> with ::after { content: "4826" }: the snapshot lists the pseudo
        // first, the page shows it last.
        let nodes = [ROOT, child(0), pseudo(1, "after"), child(1)];
        let layout: &[Laid] = &[
            (1, ECHO, ""),
            (2, [200.0, 140.0, 100.0, 80.0], "4826"),
            (3, [20.0, 140.0, 180.0, 80.0], "walrus"),
        ];
        let snap = snapshot(&[(&nodes, layout, (0.0, 0.0))]);
        assert_eq!(unreadable(&snap, &hidden()).unwrap().len(), 3);
        let reversed: &[Laid] = &[
            (1, ECHO, ""),
            (2, [200.0, 140.0, 100.0, 80.0], "walrus"),
            (3, [20.0, 140.0, 180.0, 80.0], "4826"),
        ];
        let snap = snapshot(&[(&nodes, reversed, (0.0, 0.0))]);
        assert!(
            unreadable(&snap, &hidden()).unwrap().is_empty(),
            "\"4826\" then \"walrus\" shows no value"
        );
    }

    #[test]
    fn a_closed_shadow_root_is_covered_whole_whatever_it_holds_and_scrolled_into_the_viewport() {
        // <div id=host> with a closed root holding a span (with text) and an open root's node.
        let nodes = [
            ROOT,
            child(0), // host
            shadow(1, "closed"),
            shadow(2, "closed"),
            shadow(2, "open"),
            child(0), // outside
        ];
        let layout: &[Laid] = &[
            (1, [0.0, 500.0, 400.0, 100.0], ""),
            (3, [0.0, 500.0, 100.0, 20.0], "nothing secret"),
            (4, [0.0, 700.0, 50.0, 20.0], ""),
            (5, [0.0, 900.0, 50.0, 20.0], "outside"),
        ];
        let snap = snapshot(&[(&nodes, layout, (0.0, 400.0))]);
        assert_eq!(
            sorted_boxes(&snap),
            vec![
                [0.0, 100.0, 100.0, 20.0],
                [0.0, 100.0, 400.0, 100.0],
                [0.0, 300.0, 50.0, 20.0]
            ]
        );
        assert!(
            unreadable(&snap, &[]).unwrap().is_empty(),
            "nothing to hide: nothing covered"
        );
    }

    #[test]
    fn in_a_frame_the_frames_box_in_the_page_is_covered_and_an_unplaced_one_withholds() {
        let page = [ROOT, child(0), frame_element(1, 1)];
        let page_layout: &[Laid] = &[(1, BODY, ""), (2, [10.0, 20.0, 300.0, 150.0], "")];
        let frame = [ROOT, child(0), shadow(1, "closed")];
        let frame_layout: &[Laid] = &[(2, [5.0, 5.0, 10.0, 10.0], "")];
        let snap = snapshot(&[
            (&page, page_layout, (0.0, 0.0)),
            (&frame, frame_layout, (0.0, 0.0)),
        ]);
        assert_eq!(
            unreadable(&snap, &hidden()).unwrap(),
            vec![[10.0, 20.0, 300.0, 150.0]]
        );
        let unplaced = snapshot(&[
            (&page[..2], &page_layout[..1], (0.0, 0.0)),
            (&frame, frame_layout, (0.0, 0.0)),
        ]);
        assert_eq!(unreadable(&unplaced, &hidden()), Err(Unplaced::Frame));
    }

    #[test]
    fn a_box_is_widened_by_how_far_shadows_and_reflections_copy_it() {
        // A closed root inside <div style="text-shadow: 0 200px 0 #000; filter:
        // drop-shadow(10px 15px 4px black)">, itself in a reflected <section>.
        let nodes = [
            ROOT,
            child(0), // section, reflected
            child(1), // div, shadows
            shadow(2, "closed"),
        ];
        let layout: &[Laid] = &[
            (1, [0.0, 0.0, 100.0, 50.0], ""),
            (2, [0.0, 0.0, 100.0, 40.0], ""),
            (3, [10.0, 10.0, 20.0, 10.0], ""),
        ];
        let mut snap = snapshot(&[(&nodes, layout, (0.0, 0.0))]);
        let mut style = |values: [&str; 3]| {
            ArrayOfStrings::new(
                values
                    .iter()
                    .map(|v| {
                        snap.strings.push(v.to_string());
                        StringIndex::new(snap.strings.len() as i64 - 1)
                    })
                    .collect::<Vec<_>>(),
            )
        };
        let styles = vec![
            style(["none", "none", "below 10% none"]),
            style([
                "rgb(0, 0, 0) 0px 200px 0px",
                "drop-shadow(rgb(0, 0, 0) 10px 15px 4px)",
                "none",
            ]),
            style(["rgb(0, 0, 0) 0px 200px 0px", "none", "none"]),
        ];
        snap.documents[0].layout.styles = styles;
        // 200 (the nearest text-shadow, inherited) + 29 (the drop-shadow) + 100 + 10 (the
        // reflection: the section's size, and its offset of 10% of it).
        let far = 200.0 + 29.0 + 110.0;
        let boxes = unreadable(&snap, &hidden()).unwrap();
        assert!(
            boxes.contains(&[10.0 - far, 10.0 - far, 20.0 + 2.0 * far, 10.0 + 2.0 * far]),
            "{boxes:?}"
        );
        assert_eq!(lengths("rgb(0, 0, 0) -3px 4.5px 0px", 0.0), 7.5);
    }
}
