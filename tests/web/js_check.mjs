// Reads {name: source} as JSON on stdin, parses each as an ES module with acorn (vendored:
// web/build.mjs copies it to tests/web/vendor) and prints JSON: for each source its functions
// (name, first and last line), the names it declares at its top (exported or not), the names
// it binds anywhere (imports, declarations, parameters), the names it refers to, the names it
// imports, and a parse error if any. tests/web/test_modules.py judges them.
import * as acorn from "./vendor/acorn.mjs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const sources = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// The names a pattern binds (a, {a, b: c}, [a, ...b], a = 1).
function patternNames(p, out) {
  if (!p) return out;
  if (p.type === "Identifier") out.push(p.name);
  else if (p.type === "ObjectPattern") p.properties.forEach((q) => patternNames(q.type === "RestElement" ? q.argument : q.value, out));
  else if (p.type === "ArrayPattern") p.elements.forEach((q) => patternNames(q, out));
  else if (p.type === "RestElement") patternNames(p.argument, out);
  else if (p.type === "AssignmentPattern") patternNames(p.left, out);
  return out;
}

function examine(source) {
  const ast = acorn.parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true });
  const functions = [], bound = new Set(), used = new Set(), top = [], imported = [];
  for (const node of ast.body) {
    const d = node.type === "ExportNamedDeclaration" ? node.declaration : node;
    if (d && d.id) top.push(d.id.name);
    if (d && d.declarations) d.declarations.forEach((x) => top.push(...patternNames(x.id, [])));
  }
  // every node once; `parent` says whether an identifier is a reference
  const visit = (node, parent, key) => {
    if (!node || typeof node.type !== "string") return;
    switch (node.type) {
      case "FunctionDeclaration": case "FunctionExpression": case "ArrowFunctionExpression": {
        const name = node.id ? node.id.name : parent && parent.type === "VariableDeclarator" && parent.id.name
          || parent && (parent.type === "MethodDefinition" || parent.type === "Property") && parent.key.name || "(anonymous)";
        functions.push({ name, first: node.loc.start.line, last: node.loc.end.line });
        if (node.id) bound.add(node.id.name);
        node.params.forEach((p) => patternNames(p, []).forEach((n) => bound.add(n)));
        break;
      }
      case "ClassDeclaration": if (node.id) bound.add(node.id.name); break;
      case "VariableDeclarator": patternNames(node.id, []).forEach((n) => bound.add(n)); break;
      case "ImportSpecifier": case "ImportDefaultSpecifier": case "ImportNamespaceSpecifier":
        bound.add(node.local.name);
        imported.push(node.local.name);
        break;
      case "CatchClause": patternNames(node.param, []).forEach((n) => bound.add(n)); break;
      case "Identifier": {
        const property = parent && (parent.type === "MemberExpression" && key === "property" && !parent.computed
          || (parent.type === "Property" || parent.type === "MethodDefinition" || parent.type === "PropertyDefinition") && key === "key" && !parent.computed
          || parent.type === "ImportSpecifier" || parent.type === "ExportSpecifier" && key === "exported");
        if (!property) used.add(node.name);
        break;
      }
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === "loc") continue;
      if (Array.isArray(v)) v.forEach((c) => visit(c, node, k));
      else if (v && typeof v.type === "string") visit(v, node, k);
    }
  };
  visit(ast, null, null);
  return { functions, top, bound: [...bound], used: [...used], imported };
}

const out = {};
for (const [name, source] of Object.entries(sources)) {
  try { out[name] = examine(source); } catch (e) { out[name] = { error: String(e.message || e) }; }
}
process.stdout.write(JSON.stringify(out));
