"""The exported page's inline stylesheet and its one small script."""

from __future__ import annotations

PAGE_CSS = """
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --card: #ffffff; --text: #1f2328; --muted: #656d76; --border: #d8dee4;
  --accent: #0969da; --user: #eef4ff; --user-border: #b6cffb; --code-bg: #f3f4f6;
  --tool-bg: #fafbfc; --add-bg: #dafbe1; --add-fg: #116329; --del-bg: #ffebe9; --del-fg: #82071e;
  --err: #cf222e; --err-bg: #ffebe9; --warn: #9a6700; --warn-bg: #fff8c5; --ok: #1a7f37;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --card: #161b22; --text: #e6edf3; --muted: #8d96a0; --border: #30363d;
    --accent: #4493f8; --user: #112240; --user-border: #1f4b8f; --code-bg: #0b0f14;
    --tool-bg: #11161d; --add-bg: #12361f; --add-fg: #7ee787; --del-bg: #3d1418; --del-fg: #ffa198;
    --err: #ff7b72; --err-bg: #3d1418; --warn: #d29922; --warn-bg: #2e2508; --ok: #3fb950;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 920px; margin: 0 auto; padding: 32px 20px 64px; }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; }
code { font-size: 0.88em; background: var(--code-bg); padding: 0.1em 0.35em; border-radius: 4px; overflow-wrap: anywhere; }
pre {
  font-size: 13px; line-height: 1.5; background: var(--code-bg); border: 1px solid var(--border);
  border-radius: 6px; padding: 10px 12px; overflow-x: auto; margin: 8px 0; white-space: pre;
}
pre code { background: none; padding: 0; font-size: inherit; overflow-wrap: normal; }
pre.output { white-space: pre-wrap; overflow-wrap: anywhere; }
.muted { color: var(--muted); font-size: 0.9em; }
header.session { margin-bottom: 24px; }
header.session h1 { font-size: 1.6em; line-height: 1.3; margin: 0 0 12px; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; font-size: 0.92em; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.toolbar { margin-top: 12px; display: flex; gap: 8px; }
.toolbar button {
  font: inherit; font-size: 0.85em; color: var(--text); background: var(--card);
  border: 1px solid var(--border); border-radius: 6px; padding: 3px 10px; cursor: pointer;
}
section.context details { margin: 8px 0; }
.msg {
  background: var(--card); border: 1px solid var(--border); border-radius: 10px;
  padding: 12px 16px; margin: 14px 0; overflow-wrap: break-word;
}
.msg.user { background: var(--user); border-color: var(--user-border); }
.msg.summary, .msg.custom { border-style: dashed; }
.msg-head { display: flex; align-items: center; gap: 8px; font-size: 0.8em; color: var(--muted); margin-bottom: 4px; }
.msg-head .role { font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em; }
.msg-head time { margin-left: auto; }
.msg-body > :first-child, .md > :first-child { margin-top: 0; }
.msg-body > :last-child, .md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md table { margin: 0.6em 0; }
.md blockquote { border-left: 3px solid var(--border); padding-left: 12px; color: var(--muted); margin-left: 0; }
.md table { border-collapse: collapse; display: block; overflow-x: auto; }
.md th, .md td { border: 1px solid var(--border); padding: 4px 10px; }
.md img, .inline-image { max-width: 100%; border-radius: 6px; }
.msg-meta { margin-top: 8px; font-size: 0.78em; color: var(--muted); }
.msg-meta code { font-size: 0.95em; }
details > summary { cursor: pointer; color: var(--muted); font-size: 0.9em; user-select: none; }
details.thinking { margin: 8px 0; border-left: 3px solid var(--border); padding: 2px 0 2px 12px; }
details.thinking[open] .md { color: var(--muted); font-style: italic; }
.tool-call { background: var(--tool-bg); border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px; margin: 10px 0; }
.tool-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; }
.tool-name { font-weight: 600; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.9em; }
.tool-summary { background: none; padding: 0; color: var(--muted); }
.tool-result { margin-top: 6px; }
.tool-result.error pre { border-color: var(--err); }
.badge {
  font-size: 0.75em; border: 1px solid var(--border); border-radius: 999px; padding: 0 8px;
  color: var(--muted); white-space: nowrap; font-style: normal; text-transform: none; letter-spacing: 0;
}
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.err { color: var(--err); border-color: var(--err); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.badge.label { color: var(--accent); border-color: var(--accent); }
.error-box { margin-top: 8px; padding: 6px 10px; border-radius: 6px; background: var(--err-bg); color: var(--err); font-size: 0.9em; }
.error-box.warn { background: var(--warn-bg); color: var(--warn); }
.marker { text-align: center; font-size: 0.82em; color: var(--muted); margin: 14px 0; }
.marker code { font-size: 0.95em; }
pre.diff { padding: 6px 0; white-space: pre; }
pre.diff .dl { display: block; padding: 0 12px 0 0; min-width: max-content; }
pre.diff .ln { display: inline-block; min-width: 4.5em; padding: 0 10px; margin-right: 8px; color: var(--muted); text-align: right; user-select: none; }
pre.diff .add { background: var(--add-bg); color: var(--add-fg); }
pre.diff .del { background: var(--del-bg); color: var(--del-fg); }
pre.diff .gap { color: var(--muted); }
footer.totals { margin-top: 32px; border-top: 1px solid var(--border); padding-top: 16px; }
footer.totals h2 { font-size: 1.1em; margin: 0 0 8px; }
footer.totals ul { margin: 0 0 8px; padding-left: 20px; }
@media print { .toolbar { display: none; } details { break-inside: avoid; } }
"""

# Only niceties: the page reads fully without it. It reveals the toolbar and wires its buttons, and
# colours the code blocks a big export left to the browser (markdown_render.HIGHLIGHT_BUDGET_CHARS).
# A raw string: the highlighter's regular expressions below are JavaScript, backslashes and all.
PAGE_SCRIPT = r"""
(function () {
  var bar = document.getElementById("toolbar");
  if (!bar) { return; }
  bar.hidden = false;
  function setAll(open) {
    var all = document.querySelectorAll("details");
    for (var i = 0; i < all.length; i++) { all[i].open = open; }
  }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
})();
(function () {
  var KEYWORDS = {
    py: "and as assert async await break class continue def del elif else except finally for from global if import "
      + "in is lambda nonlocal not or pass raise return try while with yield match case",
    c: "abstract as async await break case catch class const continue default defer delete do else enum export "
      + "extends final finally fn for func function go if impl implements import in instanceof interface let loop "
      + "match mod mut namespace new package private protected pub public return static struct super switch this "
      + "throw throws trait try type typeof use var void where while yield int char float double long short "
      + "unsigned bool boolean string u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 usize isize",
    sh: "if then else elif fi for while until do done case esac in function return local export exit set unset",
    json: ""
  };
  var CONSTANTS = " true false null None True False nil undefined ";
  // Groups: 1 comment, 2 string, 3 number, 4 word. An unclosed comment or docstring runs to the end
  // (as in the languages), so no input makes a pattern rescan the rest of the block again and again.
  var PATTERNS = {
    py: /(#[^\n]*)|("{3}[\s\S]*?(?:"{3}|$)|'{3}[\s\S]*?(?:'{3}|$)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|(\b\d[\w.]*)|([A-Za-z_]\w*)/g,
    c: /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|(\b\d[\w.]*)|([A-Za-z_$]\w*)/g,
    sh: /((?:^|[ \t])#[^\n]*)|("(?:\\.|[^"\\])*"|'[^'\n]*')|(\b\d+\b)|([A-Za-z_][\w-]*)/gm,
    json: /(\/\/[^\n]*)|("(?:\\.|[^"\\\n])*")|(-?\b\d[\d.eE+-]*)|([a-z]+)/g
  };
  function esc(text) { return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function span(cls, text) { return '<span class="' + cls + '">' + esc(text) + "</span>"; }
  // Code blocks past the export's server-side highlighting budget (data-hl: the language family)
  // are coloured here with the same token classes, so the page's stylesheet applies to both.
  function paint(el) {
    var family = el.getAttribute("data-hl"), re = PATTERNS[family], words = " " + KEYWORDS[family] + " ";
    var text = el.textContent, out = "", last = 0, m;
    el.removeAttribute("data-hl");
    if (!re) { return; }
    re.lastIndex = 0;
    while ((m = re.exec(text)) !== null) {
      if (m[0] === "") { re.lastIndex++; continue; }
      out += esc(text.slice(last, m.index));
      if (m[1]) { out += span("c", m[0]); }
      else if (m[2]) { out += span("s", m[0]); }
      else if (m[3]) { out += span("m", m[0]); }
      else if (CONSTANTS.indexOf(" " + m[0] + " ") >= 0) { out += span("kc", m[0]); }
      else if (words.indexOf(" " + m[0] + " ") >= 0) { out += span("k", m[0]); }
      else { out += esc(m[0]); }
      last = re.lastIndex;
    }
    el.innerHTML = out + esc(text.slice(last));
  }
  var todo = document.querySelectorAll("code[data-hl]"), next = 0;
  // In slices, so a page with thousands of blocks stays responsive while they are coloured.
  function slice() {
    for (var end = Math.min(next + 200, todo.length); next < end; next++) { paint(todo[next]); }
    if (next < todo.length) { setTimeout(slice, 0); }
  }
  slice();
})();
"""
