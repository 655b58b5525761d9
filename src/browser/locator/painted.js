  // ---- what a person sees: painted, on the page, at a size ----
  // Judged by computed style and geometry, up the tree (across shadow roots and frames):
  // opacity, visibility, clip and clip-path, a box of (nearly) no size or inside one that
  // hides its overflow, off the page by position or transform. Text must also be drawn at a
  // size (font-size) and not pushed out of its box (text-indent).
  const hides = new Map();
  // A length of a clip-path (`50%`, `10px`) against the box's side.
  const lengthIn = (s, whole) => (String(s).endsWith("%") ? parseFloat(s) / 100 * whole : parseFloat(s) || 0);
  function clippedAway(st, r) {
    const clip = st.clip;
    if (clip && clip !== "auto" && (st.position === "absolute" || st.position === "fixed")) {
      const m = clip.match(/rect\(([^)]*)\)/);
      if (m) {
        const [t, right, b, l] = m[1].split(/[\s,]+/).filter(Boolean).map((v) => (v === "auto" ? NaN : parseFloat(v)));
        const w = (isNaN(right) ? r.width : right) - (isNaN(l) ? 0 : l);
        const h = (isNaN(b) ? r.height : b) - (isNaN(t) ? 0 : t);
        if (w <= 1 || h <= 1) return true;
      }
    }
    const path = st.clipPath;
    if (!path || path === "none") return false;
    let m = path.match(/^inset\(([^)]*)\)/);
    if (m) {
      const sides = m[1].split(/\s+round\s+/)[0].trim().split(/\s+/);
      const [t, right = t, b = t, l = right] = sides;
      return lengthIn(t, r.height) + lengthIn(b, r.height) >= r.height - 1
        || lengthIn(l, r.width) + lengthIn(right, r.width) >= r.width - 1;
    }
    m = path.match(/^(circle|ellipse)\(\s*([^\s)]*)\s*([^\s)]*)/);
    if (m) {
      const first = m[2] && !m[2].startsWith("at") ? parseFloat(m[2]) : NaN;
      const second = m[1] === "ellipse" && m[3] && !m[3].startsWith("at") ? parseFloat(m[3]) : NaN;
      return first <= 0.5 || second <= 0.5;
    }
    m = path.match(/^polygon\(([^)]*)\)/);
    if (m) {
      const points = m[1].split(",").map((p) => p.trim().split(/\s+/).filter((v) => !/^(nonzero|evenodd)$/.test(v)))
        .filter((p) => p.length === 2).map(([x, y]) => [lengthIn(x, r.width), lengthIn(y, r.height)]);
      let area = 0;
      for (let i = 0; i < points.length; i++) {
        const [x1, y1] = points[i], [x2, y2] = points[(i + 1) % points.length];
        area += x1 * y2 - x2 * y1;
      }
      return Math.abs(area) / 2 < 1;
    }
    return false;
  }
  // Whether `n` (an element) hides itself and all inside it.
  function hidesAll(n) {
    if (hides.has(n)) return hides.get(n);
    const st = styleOf(n);
    const r = n.getBoundingClientRect();
    // The root's and the body's overflow belongs to the viewport: it clips nothing of theirs.
    const root = tagOf(n) === "HTML" || tagOf(n) === "BODY";
    const overflowHidden = !root && (st.overflowX !== "visible" || st.overflowY !== "visible");
    const hidden = parseFloat(st.opacity) <= 0.01
      || clippedAway(st, r)
      || (st.display !== "contents" && overflowHidden && (r.width <= 1 || r.height <= 1));
    const answer = hidden || (!!up(n) && hidesAll(up(n)));
    hides.set(n, answer);
    return answer;
  }
  function painted(el) {
    if (!isVisible(el) || hidesAll(el)) return false;
    if (styleOf(el).display === "contents") return true;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    // Off the page: wholly before its start, or past its end, where no scrolling reaches.
    const win = view(el);
    const doc = el.ownerDocument.documentElement;
    const [left, top] = [r.left + win.scrollX, r.top + win.scrollY];
    if (left + r.width <= 0 || top + r.height <= 0) return false;
    if (left >= Math.max(doc.scrollWidth, win.innerWidth) || top >= Math.max(doc.scrollHeight, win.innerHeight)) return false;
    return true;
  }
  // Whether the text directly inside `el` is drawn: at a size, and not indented out of view.
  function drawsText(el) {
    const st = styleOf(el);
    if (parseFloat(st.fontSize) <= 1) return false;
    const indent = parseFloat(st.textIndent) || 0;
    return indent > -el.getBoundingClientRect().width;
  }
  // The text of `el` a person sees: its painted text, in order, whitespace collapsed.
  function paintedText(el) {
    if (tagOf(el) === "INPUT") return textOf(el);
    const parts = [];
    const walk = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === Node.TEXT_NODE) {
          const p = c.parentElement;
          if (p && painted(p) && drawsText(p)) parts.push(transformed(c.data, styleOf(p).textTransform));
        } else if (c.nodeType === Node.ELEMENT_NODE && !SKIP.has(tagOf(c))) {
          if (c.shadowRoot) walk(c.shadowRoot);
          const block = !styleOf(c).display.startsWith("inline");
          if (block) parts.push(" ");
          walk(c);
          if (block) parts.push(" ");
        }
      }
    };
    walk(el);
    return tidy(parts.join(""));
  }
  // Text as CSS draws it (`text-transform`), as innerText gives it.
  function transformed(text, how) {
    if (how === "uppercase") return text.toUpperCase();
    if (how === "lowercase") return text.toLowerCase();
    if (how === "capitalize") return text.replace(/(^|\s)(\p{L})/gu, (m, a, b) => a + b.toUpperCase());
    return text;
  }
