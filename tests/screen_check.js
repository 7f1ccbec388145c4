// Every visible link, button, field and box of the sheet (a, button, input, .cell), each on the
// screen or inside the box that scrolls it (within reach of its scrolling), and that box showing
// a cue on each side where it hides some: a fade of its edge (its mask) or a shadow cast by what
// stays pinned on that side (a sticky element). Returns what is wrong, in words.
// Read by tests/test_browser_every_screen.py and run in the page.
(() => {
  const problems = [];
  const root = document.documentElement;
  const width = root.clientWidth;
  if (root.scrollWidth > innerWidth) problems.push(`the page is ${root.scrollWidth} px wide`);
  const scrolls = s => /auto|scroll/.test(s.overflowX) || /auto|scroll/.test(s.overflowY);
  const clips = s => s.overflowX !== "visible" || s.overflowY !== "visible";
  const px = n => Math.round(n);
  const named = e => {
    const text = (e.getAttribute("aria-label") || e.textContent || e.value || "").trim();
    const classes = typeof e.className === "string" ? e.className.trim().split(/\s+/) : [];
    const cls = classes.filter(Boolean).map(c => "." + c).join("");
    return `${e.tagName.toLowerCase()}${cls} "${text.replace(/\s+/g, " ").slice(0, 24)}"`;
  };

  // A gradient's stop position ("24px", "100%", "calc(100% - 24px)") along `size` px.
  const at = (text, size) => {
    let total = 0, sign = 1, found = false;
    for (const m of text.matchAll(/([+-])|(-?[\d.]+)(px|%)/g)) {
      if (m[1]) {
        sign = m[1] === "-" ? -1 : 1;
        continue;
      }
      total += sign * (m[3] === "%" ? (parseFloat(m[2]) * size) / 100 : parseFloat(m[2]));
      sign = 1;
      found = true;
    }
    return found ? total : null;
  };
  // Arguments at the top level of a function's parentheses.
  const split = text => {
    const parts = [];
    let depth = 0, start = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "(") depth++;
      else if (text[i] === ")") depth--;
      else if (text[i] === "," && depth === 0) {
        parts.push(text.slice(start, i).trim());
        start = i + 1;
      }
    }
    parts.push(text.slice(start).trim());
    return parts;
  };
  const alpha = colour => {
    if (colour === "transparent") return 0;
    const n = (colour.match(/[\d.]+/g) || []).map(Number);
    return colour.startsWith("rgba") ? n[3] : 1;
  };

  // How much the box's mask fades each of its edges: 1 - its least opacity within 12 px of it.
  const fades = box => {
    const found = {left: 0, right: 0, top: 0, bottom: 0};
    const s = getComputedStyle(box);
    const mask = s.maskImage || s.webkitMaskImage || "none";
    for (const g of mask.matchAll(/linear-gradient\(/g)) {
      const open = g.index + g[0].length;
      let depth = 1, i = open;
      for (; i < mask.length && depth; i++) depth += mask[i] === "(" ? 1 : mask[i] === ")" ? -1 : 0;
      const args = split(mask.slice(open, i - 1));
      let direction = "to bottom";
      if (/^to |deg$/.test(args[0])) direction = args.shift();
      if (!["to right", "to left", "to bottom", "to top"].includes(direction)) continue;
      const across = direction === "to right" || direction === "to left";
      const size = across ? box.offsetWidth : box.offsetHeight;
      const stops = args.map(a => {
        const m = a.match(/^((?:rgba?\([^)]*\))|[a-z]+)\s*(.*)$/);
        return {alpha: alpha(m[1]), at: m[2] ? at(m[2], size) : null};
      });
      if (stops.length < 2) continue;
      if (stops[0].at === null) stops[0].at = 0;
      if (stops[stops.length - 1].at === null) stops[stops.length - 1].at = size;
      for (let k = 1; k < stops.length; k++) {
        if (stops[k].at === null) stops[k].at = stops[k - 1].at;
        stops[k].at = Math.max(stops[k].at, stops[k - 1].at);
      }
      const opacity = x => {
        if (x <= stops[0].at) return stops[0].alpha;
        for (let k = 1; k < stops.length; k++) {
          const [a, b] = [stops[k - 1], stops[k]];
          if (x < b.at) return a.alpha + ((b.alpha - a.alpha) * (x - a.at)) / (b.at - a.at);
        }
        return stops[stops.length - 1].alpha;
      };
      const least = (from, to) => {
        let low = 1;
        for (let x = from; x <= to; x += 0.5) low = Math.min(low, opacity(x));
        return low;
      };
      const begin = 1 - least(1.5, 12), end = 1 - least(size - 12, size - 1.5);
      const flipped = direction === "to left" || direction === "to top";
      const [first, last] = across ? ["left", "right"] : ["top", "bottom"];
      const [start, finish] = flipped ? [last, first] : [first, last];
      found[start] = Math.max(found[start], begin);
      found[finish] = Math.max(found[finish], end);
    }
    return found;
  };
  // The sides where something pinned inside the box (sticky) casts a shadow over what scrolls.
  const shadows = box => {
    const found = {left: false, right: false, top: false, bottom: false};
    for (const e of box.querySelectorAll("*")) {
      const s = getComputedStyle(e);
      if (s.position !== "sticky" || s.boxShadow === "none") continue;
      if (!(s.boxShadow.match(/-?[\d.]+px/g) || []).some(n => parseFloat(n) !== 0)) continue;
      for (const side of Object.keys(found)) if (s[side] !== "auto") found[side] = true;
    }
    return found;
  };
  const cues = new Map();
  const cue = (box, side) => {
    if (!cues.has(box)) cues.set(box, [fades(box), shadows(box)]);
    const [fade, shadow] = cues.get(box);
    return fade[side] >= 0.4 || shadow[side];
  };

  const seen = new Set();
  const complain = text => {
    if (!seen.has(text)) problems.push(text);
    seen.add(text);
  };
  for (const e of document.querySelectorAll("a, button, input, .cell")) {
    if (e.closest(".visually-hidden") || !e.checkVisibility({visibilityProperty: true})) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    // What the clipping boxes around it leave of it, up to the box that scrolls it.
    let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
    let scroller = null;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (scrolls(s)) {
        scroller = a;
        break;
      }
      if (clips(s)) {
        const c = a.getBoundingClientRect();
        [left, top] = [Math.max(left, c.left), Math.max(top, c.top)];
        [right, bottom] = [Math.min(right, c.right), Math.min(bottom, c.bottom)];
      }
    }
    if (right - left < 1 || bottom - top < 1) {
      complain(`${named(e)} is hidden by a box that cuts it`);
      continue;
    }
    if (!scroller) {
      if (left < -1 || right > width + 1) {
        complain(`${named(e)} is off the screen (${px(left)}–${px(right)} px)`);
      }
      continue;
    }
    const c = scroller.getBoundingClientRect();
    if (c.left < -1 || c.right > width + 1) {
      const span = `${px(c.left)}–${px(c.right)} px`;
      complain(`${named(scroller)}, which scrolls, is off the screen (${span})`);
    }
    const inner = {left: c.left + scroller.clientLeft, top: c.top + scroller.clientTop};
    inner.right = inner.left + scroller.clientWidth;
    inner.bottom = inner.top + scroller.clientHeight;
    const x0 = inner.left - scroller.scrollLeft, y0 = inner.top - scroller.scrollTop;
    const reach = [x0 - 1, y0 - 1, x0 + scroller.scrollWidth + 1, y0 + scroller.scrollHeight + 1];
    if (left < reach[0] || top < reach[1] || right > reach[2] || bottom > reach[3]) {
      complain(`${named(e)} is out of reach of ${named(scroller)}`);
      continue;
    }
    const hidden = [];
    if (left < inner.left - 1) hidden.push("left");
    if (right > inner.right + 1) hidden.push("right");
    if (top < inner.top - 1) hidden.push("top");
    if (bottom > inner.bottom + 1) hidden.push("bottom");
    for (const side of hidden) {
      if (!cue(scroller, side)) complain(`${named(scroller)} hides boxes on its ${side}, no cue`);
    }
  }
  return problems;
})
