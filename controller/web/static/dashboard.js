// The venue dashboard: every table of billiards/<venue>/+ — retained status, state and
// health make a fresh page complete at once; events arrive as they happen.
"use strict";

(async function main() {
  const config = await loadConfig();
  document.getElementById("venue").textContent = config.venue;
  document.title = `${config.venue} — billiards tables`;
  const tables = new Map();
  const root = `${config.prefix}/${config.venue}/`;
  for (const id of config.tables || []) tables.set(id, new TableModel(id));

  const container = document.getElementById("tables");
  let pending = false;
  function render() {
    pending = false;
    const ids = [...tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    container.replaceChildren(...ids.map((id) => renderTable(tables.get(id), { console: true })));
    document.getElementById("empty").hidden = ids.length > 0;
  }
  function soon() { if (!pending) { pending = true; requestAnimationFrame(render); } }
  render();

  const client = connect(config, config.dashboard, setConnection);
  client.on("connect", () => client.subscribe(root + "+/+", { qos: 1 }));
  client.on("message", (topic, payload) => {
    const parts = topic.slice(root.length).split("/");
    if (parts.length !== 2) return;
    const [id, kind] = parts;
    const data = parseJson(payload);
    if (data === undefined) return;  // not JSON: not ours
    if (data === null) {  // a retained message cleared: a table taken out of service
      if (kind === "status" && tables.has(id)) { tables.delete(id); soon(); }
      return;
    }
    if (!tables.has(id)) tables.set(id, new TableModel(id));
    if (tables.get(id).take(kind, data)) soon();
  });
  // Redraw once a minute even when nothing arrives (so the clock-like parts never freeze).
  setInterval(soon, 60000);
  window.billiards = { client, tables };
})();
