// Copies MQTT.js's own browser bundle (as locked in package-lock.json) into the
// controller's static files. Rebuild with:  cd web && npm ci && npm run build
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "node_modules", "mqtt");
const out = join(here, "..", "controller", "web", "static", "vendor");
mkdirSync(out, { recursive: true });

const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
copyFileSync(join(pkg, "dist", "mqtt.min.js"), join(out, "mqtt.min.js"));
copyFileSync(join(pkg, "LICENSE.md"), join(out, "mqtt.LICENSE.md"));
const sha256 = createHash("sha256").update(readFileSync(join(out, "mqtt.min.js"))).digest("hex");
writeFileSync(join(out, "mqtt.json"), JSON.stringify({ package: "mqtt", version, file: "mqtt.min.js", sha256 }, null, 2) + "\n");
console.log(`mqtt ${version} -> controller/web/static/vendor/mqtt.min.js (sha256 ${sha256})`);
