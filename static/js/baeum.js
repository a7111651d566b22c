// Shared helpers: CSRF-aware JSON fetch against the versioned API (session auth).
(function () {
  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  async function api(path, options = {}) {
    const headers = Object.assign({ "X-CSRFToken": csrfToken() }, options.headers || {});
    if (options.json !== undefined) {
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(options.json);
    }
    const response = await fetch("/api/v1/" + path, Object.assign({ credentials: "same-origin" }, options, { headers }));
    if (response.status === 204) return null;
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error((body.error && body.error.message) || response.statusText);
      error.body = body;
      throw error;
    }
    return body;
  }
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  // Highlight `quote` inside `text` whitespace-insensitively; returns safe HTML.
  function highlight(text, quote) {
    const safe = escapeHtml(text);
    if (!quote) return safe;
    const pattern = escapeHtml(quote).trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s*");
    try {
      return safe.replace(new RegExp(pattern), (m) => '<mark id="quote">' + m + "</mark>");
    } catch (e) {
      return safe;
    }
  }
  window.Baeum = { api, csrfToken, escapeHtml, highlight };
})();
