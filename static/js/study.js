// The study loop in the browser: answering a session's questions and reviewing due cards.
// Uses Baeum.api (static/js/baeum.js); every answer is graded by the server and kept.
(function () {
  const korean = (document.documentElement.lang || "").startsWith("ko");
  const T = korean
    ? {
        correct: "정답입니다", partial: "거의 맞았어요", wrong: "다시 생각해 보세요", answer: "정답", source: "출처",
        next: "다음", show: "정답 보기", again: "다시", hard: "어려움", good: "알맞음", easy: "쉬움", check: "확인",
        yourAnswer: "내 답", inWords: "내 말로…", trueLabel: "참", falseLabel: "거짓", done: "오늘 복습할 카드를 모두 마쳤습니다.",
        session: "세션", later: (n) => "지금 복습할 카드는 없습니다. 오늘 안에 " + n + "장이 다시 돌아옵니다.", remember: "얼마나 잘 기억했나요?",
        failed: "저장하지 못했습니다", last: "지난 답", dueAgain: "다음 복습",
      }
    : {
        correct: "Correct", partial: "Almost", wrong: "Not quite", answer: "Answer", source: "source",
        next: "Next", show: "Show answer", again: "Again", hard: "Hard", good: "Good", easy: "Easy", check: "Check",
        yourAnswer: "Your answer", inWords: "In your own words…", trueLabel: "True", falseLabel: "False", done: "Nothing more is due today.",
        session: "Session", later: (n) => "Nothing is due right now; " + n + (n === 1 ? " card comes" : " cards come") + " back later today.", remember: "How well did you remember it?",
        failed: "Not saved", last: "Last answer", dueAgain: "Next review",
      };
  const esc = (text) => Baeum.escapeHtml(String(text ?? ""));

  function sourceLink(citation) {
    if (!citation || !citation.refId) return "";
    const href = "/library/" + encodeURIComponent(citation.refId) + "/?page=" + citation.pageNumber + "&quote=" + encodeURIComponent(citation.quote || "");
    return ' — <a href="' + href + '">' + esc(T.source) + ", p." + esc(citation.pageLabel || citation.pageNumber) + "</a>";  // the printed page, as the page shows it
  }

  function expectedText(kind, expected) {
    if (kind === "true_false") return expected === "true" ? T.trueLabel : T.falseLabel;
    return expected;
  }

  function gradeHtml(kind, body) {
    const citation = body.card && body.card.citation;
    let html = '<p class="verdict ' + esc(body.verdict) + '"><strong>' + esc(T[body.verdict]) + "</strong></p>";
    html += "<p>" + esc(T.answer) + ": <strong>" + esc(expectedText(kind, body.expected)) + "</strong>" + sourceLink(citation) + "</p>";
    if (kind === "true_false" && citation && citation.quote) html += '<p class="muted">' + esc(citation.quote) + "</p>";
    return html;
  }

  // A session's questions: <li class="question" data-question=id data-kind=kind> with a form.
  function questions(basePath, previous) {
    document.querySelectorAll("li.question").forEach((item) => {
      const form = item.querySelector("form.answer-form");
      const result = item.querySelector(".result");
      const last = previous && previous[item.dataset.question];
      if (last && last.verdict) {
        result.hidden = false;
        result.innerHTML = '<p class="muted">' + esc(T.last) + ": " + esc(last.response) + " · " + esc(T[last.verdict]) + "</p>";
      }
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const submitter = event.submitter;
        const response = submitter && submitter.name === "response" ? submitter.value : data.get("response") || "";
        form.querySelectorAll("button").forEach((button) => (button.disabled = true));
        try {
          const body = await Baeum.api(basePath + encodeURIComponent(item.dataset.question) + "/answer", { method: "POST", json: { response } });
          result.hidden = false;
          result.innerHTML = gradeHtml(item.dataset.kind, body);
          const details = item.querySelector("details.answer");
          if (details) details.hidden = true;
        } catch (error) {
          result.hidden = false;
          result.innerHTML = '<p class="failure">' + esc(T.failed) + ": " + esc(error.message) + "</p>";
        } finally {
          form.querySelectorAll("button").forEach((button) => (button.disabled = false));
        }
      });
    });
  }

  function answerForm(card) {
    if (card.kind === "choice") {
      return card.choices.map((choice) => '<label class="choice"><input type="radio" name="response" required value="' + esc(choice) + '"> ' + esc(choice) + "</label>").join("") +
        '<button type="submit">' + esc(T.check) + "</button>";
    }
    if (card.kind === "true_false") {
      return '<button type="submit" name="response" value="true">' + esc(T.trueLabel) + '</button> <button type="submit" name="response" value="false" class="secondary">' + esc(T.falseLabel) + "</button>";
    }
    if (card.kind === "definition") {
      return '<textarea name="response" rows="2" required aria-label="' + esc(T.yourAnswer) + '" placeholder="' + esc(T.inWords) + '"></textarea> <button type="submit">' + esc(T.check) + "</button>";
    }
    return '<input name="response" required autocomplete="off" aria-label="' + esc(T.yourAnswer) + '" placeholder="' + esc(T.yourAnswer) + '"> <button type="submit">' + esc(T.check) + "</button>";
  }

  const RATINGS = [[1, "again"], [2, "hard"], [3, "good"], [4, "easy"]];

  // The review page: one due card at a time; typed cards are graded, key points rated by the learner.
  function review(root) {
    let cards = [];
    let stats_ = null;
    let fresh = false;
    const stage = root.querySelector("[data-card]");
    const stats = root.querySelector("[data-stats]");

    async function load() {
      const body = await Baeum.api("review/");
      cards = body.cards;
      fresh = true;
      const s = (stats_ = body.stats);
      stats.querySelector("[data-due]").textContent = s.dueNow;
      stats.querySelector("[data-streak]").textContent = s.streakDays;
      stats.querySelector("[data-retention]").textContent = s.retention === null ? "—" : Math.round(s.retention * 100) + "%";
      stats.querySelector("[data-reviewed]").textContent = s.reviewedToday;
      show();
    }

    function answered(rating) {  // the tiles follow the learner's progress through the list
      const due = stats.querySelector("[data-due]"), reviewed = stats.querySelector("[data-reviewed]");
      due.textContent = Math.max(0, Number(due.textContent) - 1);
      reviewed.textContent = Number(reviewed.textContent) + 1;
      if (stats_ && rating) {  // retention is remembered / reviewed: 7 answers wrong in a row must not read 100 %
        const count = stats_.retentionReviews || 0;
        const remembered = (stats_.retention || 0) * count + (rating > 1 ? 1 : 0);
        stats_.retentionReviews = count + 1;
        stats_.retention = remembered / (count + 1);
        stats.querySelector("[data-retention]").textContent = Math.round(stats_.retention * 100) + "%";
      }
    }

    function show() {
      const card = cards.shift();
      if (!card && !fresh) {
        load();  // the list is done: read what is due now (answers moved due dates)
        return;
      }
      fresh = false;
      if (!card) {
        const later = stats_ ? stats_.dueToday - stats_.dueNow : 0;
        stage.innerHTML = '<p class="muted">' + esc(later > 0 ? T.later(later) : T.done) + "</p>";
        if (later > 0) setTimeout(() => load(), 60000);  // learning steps come back within minutes
        return;
      }
      const header = '<p class="muted">' + esc(card.planTitle) + (card.sessionNumber ? " · " + esc(T.session) + " " + esc(card.sessionNumber) : "") + "</p><p class=\"prompt\">" + esc(card.prompt) + "</p>";
      if (card.kind === "key_point") {
        stage.innerHTML = header + '<button type="button" data-reveal>' + esc(T.show) + "</button><div class=\"result\" hidden></div>";
        stage.querySelector("[data-reveal]").addEventListener("click", () => rate(card, null));
        return;
      }
      stage.innerHTML = header + '<form class="answer-form">' + answerForm(card) + '</form><div class="result" aria-live="polite" hidden></div>';
      const form = stage.querySelector("form");
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const submitter = event.submitter;
        const response = submitter && submitter.name === "response" ? submitter.value : new FormData(form).get("response") || "";
        form.querySelectorAll("button").forEach((button) => (button.disabled = true));
        const body = await Baeum.api("review/cards/" + card.id + "/answer", { method: "POST", json: { response } });
        answered(body.rating);
        const result = stage.querySelector(".result");
        result.hidden = false;
        result.innerHTML = gradeHtml(card.kind, body) + '<button type="button" data-next>' + esc(T.next) + "</button>";
        result.querySelector("[data-next]").addEventListener("click", () => show());
        result.querySelector("[data-next]").focus();
      });
      const input = form.querySelector("input[name=response], textarea");
      if (input) input.focus();
    }

    function rate(card) {
      const result = stage.querySelector(".result");
      result.hidden = false;
      result.innerHTML = '<p class="muted">' + esc(T.remember) + "</p>" +
        RATINGS.map(([value, name]) => '<button type="button" class="' + (value === 3 ? "" : "secondary") + '" data-rate="' + value + '">' + esc(T[name]) + "</button>").join(" ");
      stage.querySelector("[data-reveal]").hidden = true;
      result.querySelectorAll("[data-rate]").forEach((button) =>
        button.addEventListener("click", async () => {
          const body = await Baeum.api("review/cards/" + card.id + "/rate", { method: "POST", json: { rating: Number(button.dataset.rate) } });
          answered(Number(button.dataset.rate));
          result.innerHTML = "<p>" + esc(body.answer) + sourceLink(body.citation) + '</p><button type="button" data-next>' + esc(T.next) + "</button>";
          result.querySelector("[data-next]").addEventListener("click", () => show());
        })
      );
    }

    load().catch((error) => (stage.innerHTML = '<p class="failure">' + esc(error.message) + "</p>"));
  }

  window.BaeumStudy = { questions, review };
})();
