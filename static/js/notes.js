// Notes: any <button data-save-note='{"kind", "text", "citations", "planId", "source", "comment"}'> saves a
// note (anywhere: sessions, tutor answers, the notes page) and then says "Saved"; on the notes page,
// comments are edited and notes deleted in place. Uses Baeum.api (static/js/baeum.js).
(function () {
  const korean = (document.documentElement.lang || "").startsWith("ko");
  const T = korean
    ? { saved: "저장됨", saving: "저장 중…", failed: "저장하지 못했습니다", confirm: "이 노트를 삭제할까요?" }
    : { saved: "Saved", saving: "Saving…", failed: "Not saved", confirm: "Delete this note?" };

  async function saveNote(button) {
    let note;
    try {
      note = JSON.parse(button.dataset.saveNote);
    } catch (error) {
      return;
    }
    const body = { kind: note.kind || "own", text: note.text || "", citations: note.citations || [], source: note.source || "" };
    if (note.planId) body.planId = note.planId;
    if (note.comment) body.comment = note.comment;
    const label = button.textContent;
    button.disabled = true;
    button.textContent = T.saving;
    try {
      const saved = await Baeum.api("notes", { method: "POST", json: body });
      button.textContent = T.saved;
      button.dataset.noteId = saved.id;
      button.setAttribute("aria-live", "polite");
      button.dispatchEvent(new CustomEvent("baeum:note-saved", { bubbles: true, detail: saved }));
    } catch (error) {
      button.disabled = false;
      button.textContent = label;
      button.title = T.failed + ": " + error.message;
    }
  }

  // A tutor answer quoting a course's material: <button data-flag="conversations/1/messages/2/flag"
  // data-kind="wrong_answer|citation_off"> tells the course's teacher, with the comment typed beside it.
  const F = korean
    ? { sent: "선생님께 알렸습니다", failed: "보내지 못했습니다" }
    : { sent: "Sent to your teacher", failed: "Not sent" };
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-flag]");
    if (!button || button.disabled) return;
    event.preventDefault();
    const line = button.parentElement;
    const comment = line.parentElement.querySelector(".flag-comment");
    line.querySelectorAll("[data-flag]").forEach((each) => (each.disabled = true));
    try {
      await Baeum.api(button.dataset.flag, { method: "POST", json: { kind: button.dataset.kind, comment: comment ? comment.value : "" } });
      if (comment) comment.remove();
      line.textContent = F.sent;
      line.setAttribute("role", "status");
    } catch (error) {
      line.querySelectorAll("[data-flag]").forEach((each) => (each.disabled = false));
      button.title = F.failed + ": " + error.message;
    }
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-save-note]");
    if (button && !button.disabled) {
      event.preventDefault();
      saveNote(button);
    }
  });

  function say(form, text) {
    const status = form.querySelector("[aria-live]");
    if (status) status.textContent = text;
  }

  // The notes page.
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    const article = form.closest("[data-note-id]");
    if (form.classList.contains("note-comment") && article) {
      event.preventDefault();
      say(form, T.saving);
      try {
        await Baeum.api("notes/" + article.dataset.noteId, { method: "PATCH", json: { comment: form.elements.comment.value } });
        say(form, T.saved);
      } catch (error) {
        say(form, T.failed + ": " + error.message);
      }
    } else if (form.id === "note-new") {
      event.preventDefault();
      const body = { kind: "own", text: form.elements.text.value };
      if (form.dataset.planId) body.planId = Number(form.dataset.planId);
      say(form, T.saving);
      try {
        await Baeum.api("notes", { method: "POST", json: body });
        location.reload();
      } catch (error) {
        say(form, T.failed + ": " + error.message);
      }
    }
  });

  document.addEventListener("click", async (event) => {
    const button = event.target.closest(".note-delete");
    const article = button && button.closest("[data-note-id]");
    if (!article || !confirm(T.confirm)) return;
    try {
      await Baeum.api("notes/" + article.dataset.noteId, { method: "DELETE" });
      article.remove();
    } catch (error) {
      say(button.form, T.failed + ": " + error.message);
    }
  });
})();
