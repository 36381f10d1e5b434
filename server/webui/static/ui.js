// The Queries page: Kill buttons (KILL QUERY as the logged-in account) and
// a reload every few seconds while a query runs.
(function () {
  "use strict";
  const out = document.getElementById("kill-result");
  for (const b of document.querySelectorAll("button.kill")) {
    b.addEventListener("click", () => {
      b.disabled = true;
      fetch("/ui/api/kill/" + b.dataset.conn, { method: "POST", credentials: "same-origin", headers: { "X-Dorisgo-UI": "1" } })
        .then((r) => r.json().then((j) => ({ ok: r.ok, j: j })))
        .then(({ ok, j }) => {
          out.textContent = ok ? "killed the query of connection " + b.dataset.conn : "kill failed: " + j.error;
          out.className = ok ? "ok" : "error";
          if (ok) setTimeout(() => location.reload(), 1000);
          else b.disabled = false;
        });
    });
  }
  if (document.querySelector("tr.q.running")) setTimeout(() => location.reload(), 3000);
})();
