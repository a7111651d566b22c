// Shared helpers: CSRF-aware JSON fetch against the versioned API (session auth), highlighting, translated reasons.
(function () {
  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  async function api(path, options = {}) {
    // The page's language, not the browser's: a learner who switched to Korean gets Korean errors.
    const headers = Object.assign({ "X-CSRFToken": csrfToken(), "Accept-Language": document.documentElement.lang || "en" }, options.headers || {});
    if (options.json !== undefined) {
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(options.json);
    }
    const response = await fetch("/api/v1/" + path, Object.assign({ credentials: "same-origin" }, options, { headers }));
    if (response.status === 204) return null;
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error((body.error && body.error.message) || body.detail || response.statusText);
      error.body = body;
      error.code = body.error && body.error.code;
      throw error;
    }
    return body;
  }
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  // Where `quote` stands in `text`, whitespace-insensitively: [start, end], or null. A Korean word may be broken
  // over two lines of the page ("가리키" / "는데") where the passage joined it: any space may stand between two
  // Hangul syllables.
  function quoteRange(text, quote) {
    if (!quote || !quote.trim()) return null;
    const words = quote.trim().split(/\s+/).map((word) => escapeRegExp(word).replace(/([가-힣])(?=[가-힣])/g, "$1\\s*"));
    try {
      const match = new RegExp(words.join("\\s*")).exec(text);
      return match ? [match.index, match.index + match[0].length] : null;
    } catch (e) {
      return null;
    }
  }
  // Every occurrence of `term` in `text` (case-insensitive, any run of spaces): [[start, end], …].
  function termRanges(text, term) {
    const words = term.trim().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    try {
      return [...text.matchAll(new RegExp(words.map(escapeRegExp).join("\\s+"), "gi"))].map((m) => [m.index, m.index + m[0].length]);
    } catch (e) {
      return [];
    }
  }
  // A page's text as blocks, safe HTML: `kinds` says what each line is (the pages API's `lines`: "heading",
  // "code", "item", "" for running text); code lines run into one fixed-pitch block, a heading is a heading.
  // `ranges` ([start, end] in `text`) are marked: <mark class="found" data-match="i">, or the quote's
  // <mark id="quote"> when `quote` is set; a range crossing lines is marked in each.
  const ENDS_SENTENCE = /(?:[.!?:;。]|다\.?)["'”’)\]]*$/;
  function renderPage(text, kinds, ranges, { quote = false } = {}) {
    const lines = text.split("\n"), blocks = [];
    let offset = 0, block = null;
    lines.forEach((line, index) => {
      const kind = (kinds && kinds[index]) || "", start = offset;
      offset += line.length + 1;
      let html = "", at = 0;
      ranges.forEach(([from, to], match) => {
        const a = Math.max(from - start, 0), b = Math.min(to - start, line.length);
        if (b <= a || a < at) return;
        const attributes = quote ? (from >= start ? ' id="quote"' : "") : ` class="found" data-match="${match}"`;
        html += escapeHtml(line.slice(at, a)) + `<mark${attributes}>` + escapeHtml(line.slice(a, b)) + "</mark>";
        at = b;
      });
      html += escapeHtml(line.slice(at));
      const tag = kind === "code" ? "pre" : kind === "heading" ? "h3" : "p";
      const joins = block && block.tag === tag && (tag === "pre" || (tag === "p" && line.trim() && kind !== "item"));
      if (!line.trim() && block && block.tag === "pre") {
        // A blank line inside a listing stays in it: the listing goes on when the next line with text is code.
        const next = lines.findIndex((other, later) => later > index && other.trim());
        if (next > 0 && kinds && kinds[next] === "code") { block.lines.push(""); return; }
      }
      if (!line.trim() && tag === "p") { block = null; return; }
      if (joins) { block.lines.push(html); block.raw.push(line); return; }
      block = { tag, kind, lines: [html], raw: [line] };
      blocks.push(block);
    });
    // A paragraph's lines flow (joined by a space) except after a line that ends a sentence, as the session text
    // reads (baeum.extraction.pages.text_blocks): a manual's hard line breaks had made the panel ragged on a phone.
    const flowed = (parts, raw) => parts.map((part, index) => index === parts.length - 1 ? part : part + (ENDS_SENTENCE.test(raw[index].trim()) ? "\n" : " ")).join("");
    return blocks.map(({ tag, kind, lines: parts, raw }) => {
      const cls = tag === "pre" ? "page-code" : tag === "h3" ? "page-heading" : kind === "item" ? "page-item" : "page-para";
      return `<${tag} class="${cls}">${tag === "pre" ? parts.join("\n") : tag === "h3" ? parts.join(" ") : flowed(parts, raw)}</${tag}>`;
    }).join("");
  }
  // Translate an English reason with the page's catalogue: [{pattern: "“%(name)s” is empty…", text: "…"}].
  function translateReason(message, patterns) {
    for (const { pattern, text } of patterns || []) {
      const names = [];
      const source = escapeRegExp(pattern).replace(/%\\\((\w+)\\\)s/g, (m, name) => { names.push(name); return "([\\s\\S]+?)"; });
      const match = new RegExp("^" + source + "$").exec(String(message).trim());
      if (match) return text.replace(/%\((\w+)\)s/g, (m, name) => match[names.indexOf(name) + 1] ?? m);
    }
    return message;
  }
  // <select data-autosubmit>: choosing submits its form (no inline handlers: the CSP allows none).
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("[data-autosubmit]") && event.target.form) event.target.form.submit();
  });
  window.Baeum = { api, csrfToken, escapeHtml, quoteRange, termRanges, renderPage, translateReason };
})();
