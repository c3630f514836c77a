// Copies the browser bundles this project uses (as locked in package-lock.json) beside the
// files that load them, each with its licence and a checksum file. Nothing is fetched from a
// CDN when the pages run. Rebuild with:  cd web && npm ci && npm run build
//   mqtt              -> controller/web/static/vendor/mqtt.min.js   (the pages' MQTT client)
//   qrcode-generator  -> controller/web/static/vendor/qrcode.js     (the TV card's QR code)
//   brackets-viewer   -> controller/web/static/vendor/brackets-viewer.min.js and .min.css
//                        (the tournament's bracket on the TV wall and the director's tablet)
//   axe-core          -> tests/web/vendor/axe.min.js                (the tests' accessibility scan)
//   acorn             -> tests/web/vendor/acorn.mjs                 (the tests' JavaScript parser: no function too long)
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const BUNDLES = [
  { name: "mqtt", file: "dist/mqtt.min.js", as: "mqtt.min.js", licence: "LICENSE.md", out: "controller/web/static/vendor" },
  { name: "qrcode-generator", file: "dist/qrcode.js", as: "qrcode.js", licence: null, out: "controller/web/static/vendor" },
  { name: "brackets-viewer", file: "dist/brackets-viewer.min.js", as: "brackets-viewer.min.js", licence: "LICENSE", out: "controller/web/static/vendor" },
  { name: "brackets-viewer", file: "dist/brackets-viewer.min.css", as: "brackets-viewer.min.css", licence: null, out: "controller/web/static/vendor" },
  { name: "axe-core", file: "axe.min.js", as: "axe.min.js", licence: "LICENSE", out: "tests/web/vendor" },
  { name: "acorn", file: "dist/acorn.mjs", as: "acorn.mjs", licence: "LICENSE", out: "tests/web/vendor" },
];

for (const b of BUNDLES) {
  const pkg = join(here, "node_modules", b.name);
  const out = join(root, b.out);
  mkdirSync(out, { recursive: true });
  const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
  copyFileSync(join(pkg, b.file), join(out, b.as));
  const stem = b.as.replace(/(\.min)?\.(m?js|css)$/, "") + (b.as.endsWith(".css") ? ".css" : "");
  // qrcode-generator ships its MIT licence in the file's own header, not in a file
  if (b.licence && existsSync(join(pkg, b.licence))) copyFileSync(join(pkg, b.licence), join(out, `${stem}.LICENSE${b.licence.endsWith(".md") ? ".md" : ".txt"}`));
  const sha256 = createHash("sha256").update(readFileSync(join(out, b.as))).digest("hex");
  writeFileSync(join(out, `${stem}.json`), JSON.stringify({ package: b.name, version, file: b.as, sha256 }, null, 2) + "\n");
  console.log(`${b.name} ${version} -> ${b.out}/${b.as} (sha256 ${sha256})`);
}
